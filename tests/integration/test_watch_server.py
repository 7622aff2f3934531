"""`specview watch` against a real llama-server serving a background load of concurrent requests.

The server runs llama-server's MTP path (tiny qwen35 + NextN model, synthetic acceptance) with
4 slots; three client threads send completions while the watcher polls /metrics and /slots.
Then the server is restarted on the same port: the watcher must flag the counter reset.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from specview.backends.remote.metrics import parse_draft_counters, parse_sums
from specview.cli import main
from specview.features.watch.model import WatchModel, WatchSample
from specview.features.watch.source import ServerWatch
from specview.kernel.langs import LANGS
from specview.texts.catalog import catalog
from tests.support.llama_server import RunningServer, free_port, llama_server, server_binary
from tests.support.mtp_gguf import write_tiny_mtp

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

MTP_ARGS = ("--spec-type", "draft-mtp", "--spec-draft-n-max", "3", "--spec-synth-rates", "0.9,0.7,0.5")
PROMPTS = ("the cat sat on", "a dog ran to the mat", "the cat and a dog")


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_mtp(tmp_path_factory.mktemp("watch") / "tiny-mtp.gguf")


def load(server: RunningServer, worker: int, requests: int, done: list[int], errors: list[str]) -> None:
    """One client: `requests` completions one after another; their completion tokens into `done`."""
    with httpx.Client(timeout=60.0) as client:
        for k in range(requests):
            body = {"prompt": PROMPTS[(worker + k) % len(PROMPTS)], "max_tokens": 150, "temperature": 0.0,
                    "seed": worker * 100 + k}
            try:
                reply = client.post(f"{server.url}/completions", json=body)
                done.append(int(reply.json()["usage"]["completion_tokens"]))
            except (httpx.HTTPError, KeyError, ValueError) as exc:
                errors.append(repr(exc))


@pytest.fixture
def busy_server(model_path: Path) -> Iterator[RunningServer]:
    with llama_server(MTP_ARGS, model=str(model_path), parallel=4) as server:
        yield server


def test_watch_follows_a_loaded_server_and_its_counters_add_up(busy_server: RunningServer) -> None:
    before_text = httpx.get(f"{busy_server.root}/metrics", timeout=5).text
    source = ServerWatch(busy_server.url)
    assert source.facts.speculating  # a fresh server's slots say so; its method shows once one served
    model = WatchModel()
    model.feed(source.scrape())
    done: list[int] = []
    errors: list[str] = []
    workers = [threading.Thread(target=load, args=(busy_server, w, 4, done, errors)) for w in range(3)]
    for w in workers:
        w.start()
    samples: list[WatchSample] = []
    stop = threading.Event()
    while any(w.is_alive() for w in workers):
        sample = model.feed(source.scrape())
        if sample is not None:
            samples.append(sample)
        stop.wait(0.1)
    for w in workers:
        w.join()
    settled = False
    for _ in range(20):  # the last request's counts land when its slot is released
        sample = model.feed(source.scrape())
        assert sample is not None
        samples.append(sample)
        if sample.active == 0 and sample.draft_tokens == 0 and model.totals().tokens == sum(done):
            settled = True
            break
        stop.wait(0.1)
    assert "MTP (draft-mtp)" in source.describe()
    source.close()
    assert not errors, errors
    assert settled, (model.totals(), sum(done))
    after_text = httpx.get(f"{busy_server.root}/metrics", timeout=5).text

    # everything the server counted while we watched, and nothing else
    server = parse_draft_counters(after_text, "llamacpp")
    start = parse_draft_counters(before_text, "llamacpp")
    assert server is not None
    delta = server.minus(start) if start is not None else server
    totals = model.totals()
    assert (totals.drafts, totals.draft_tokens, totals.accepted) == (delta.drafts, delta.draft_tokens, delta.accepted)
    assert totals.per_position == delta.per_position
    generated = parse_sums(after_text, ("llamacpp:tokens_predicted_total",))["llamacpp:tokens_predicted_total"]
    assert totals.tokens == sum(done) == generated - parse_sums(
        before_text, ("llamacpp:tokens_predicted_total",)).get("llamacpp:tokens_predicted_total", 0)
    # it looked like a busy server while it was one
    assert max(s.active or 0 for s in samples) >= 2
    assert any((s.tokens_per_s or 0) > 0 and s.draft_tokens == 0 for s in samples), \
        "tokens of running requests count before the request ends (/slots)"
    assert totals.mean_accepted_length is not None and totals.mean_accepted_length > 1.5
    assert not model.violations, list(model.violations)
    assert not any(s.reset for s in samples)


def test_a_restarted_server_is_a_counter_reset(model_path: Path) -> None:
    port = free_port()
    model = WatchModel()
    with llama_server(MTP_ARGS, model=str(model_path), port=port) as server:
        source = ServerWatch(server.url)
        model.feed(source.scrape())
        done: list[int] = []
        load(server, 0, 2, done, [])
        for _ in range(20):
            sample = model.feed(source.scrape())
            if model.totals().tokens == sum(done):
                break
            threading.Event().wait(0.1)
        source.close()
    assert model.totals().draft_tokens > 0
    with llama_server(MTP_ARGS, model=str(model_path), port=port) as server:
        source = ServerWatch(server.url)
        sample = model.feed(source.scrape())
        source.close()
    assert sample is not None and sample.reset and model.resets == 1
    assert sample.draft_tokens >= 0 and sample.accepted >= 0 and (sample.tokens or 0) >= 0


def test_the_watch_command_prints_one_json_object_per_poll(busy_server: RunningServer,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "--url", busy_server.root, "--count", "3", "--interval", "0.05", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3
    first = json.loads(lines[0])
    assert {"drafts_per_s", "accepted_per_s", "alpha", "mean_accepted_length", "per_position_acceptance",
            "tokens_per_s", "active", "reset", "violations"} <= set(first)
    assert main(["watch", "--url", busy_server.root, "--count", "1", "--interval", "0.05"]) == 0
    human = capsys.readouterr().out
    assert "llama-server" in human and "draft tok/s" in human


@pytest.mark.parametrize("lang", LANGS)
async def test_the_monitor_screen_follows_the_load(busy_server: RunningServer, lang: str) -> None:
    from specview.features.watch.app import WatchApp
    from specview.features.watch.screen import WatchScreen
    from specview.widgets.stat_gauge import StatGauge
    from specview.widgets.status_line import StatusLine
    from tests.support.app_helpers import wait_until
    from tests.support.catalog_walk import strays, words

    app = WatchApp(ServerWatch(busy_server.url), interval=0.1, lang=lang)
    done: list[int] = []
    errors: list[str] = []
    async with app.run_test(size=(140, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, WatchScreen)
        worker = threading.Thread(target=load, args=(busy_server, 0, 3, done, errors))
        worker.start()
        await wait_until(pilot, lambda: not worker.is_alive(), timeout=60.0)
        await wait_until(pilot, lambda: screen.model.totals().tokens == sum(done), timeout=10.0)
        status = screen.query_one(StatusLine)
        tps = screen.query_one("#g-tokens_per_second", StatGauge)
        # the samples that saw the load are drawn: the server named, its method, a rate
        await wait_until(pilot, lambda: "MTP (draft-mtp)" in status.what and screen.samples_shown >= 3
                         and tps.value != "—", timeout=10.0)
        assert not errors
        assert "llama-server" in status.what and "MTP (draft-mtp)" in status.what
        assert screen.samples_shown >= 3 and screen.violations_shown == 0
        assert screen.model.totals().draft_tokens > 0
        assert screen.query_one("#g-tokens_per_second", StatGauge).value != "—"
        # every word on the monitor is a catalog text of its language or data (the server's name
        # and build, its method, the URL)
        assert strays(app, lang, words(status.what)) == set()
        await pilot.press("space")
        assert status.state == catalog(lang)["state.paused"]
        await pilot.press("q")
