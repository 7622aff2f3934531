"""A /metrics made to be slow to parse: labels of escaped quotes (1 MB, and an 8 MiB scrape).

prometheus-client's parser took 8–30 s on one 1 MB label of `\\"` (it rescans the label at each
escape) and minutes on an 8 MiB scrape, on every poll. specview parses only the lines of the
families it reads, skips a line over MAX_LINE_BYTES and stops after MAX_READ_CHARS, and says
how many lines it skipped. Each case runs `specview watch` (or `bench` on the live vLLM path) in
a child process under an address-space limit and a time limit far below what the parse took.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from specview.backends.factory import make_backend
from specview.backends.remote.metrics import MAX_LINE_BYTES, MAX_READ_CHARS, draft_counters, read_samples
from specview.backends.remote.options import RemoteOptions
from specview.features.watch.app import WatchApp
from specview.features.watch.source import ServerWatch
from specview.kernel.backend import Note
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import fill
from tests.support.app_helpers import wait_until
from tests.support.hostile_checks import assert_no_secret, assert_terminal_clean, json_lines
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.limited_run import Run, base_env, run_cli
from tests.support.notices import notices

ESCAPED = '\\"'  # one escaped quote
MIB = 2**20
TIME_LIMIT = 30.0  # seconds for a whole `watch` run; the old parse took longer on one scrape
LLAMA_PROPS = json.dumps({"build_info": "b1",
                          "default_generation_settings": {"params": {"speculative.types": "draft"}}})


def counters(prefix: str) -> str:
    """A server's real counters: 20 drafts of 40 tokens, 25 accepted (15 at position 0, 10 at 1)."""
    return (f"# TYPE {prefix}:spec_decode_num_drafts counter\n{prefix}:spec_decode_num_drafts_total 20\n"
            f"{prefix}:spec_decode_num_draft_tokens_total 40\n{prefix}:spec_decode_num_accepted_tokens_total 25\n"
            f'{prefix}:spec_decode_num_accepted_tokens_per_pos_total{{position="0"}} 15\n'
            f'{prefix}:spec_decode_num_accepted_tokens_per_pos_total{{position="1"}} 10\n')


def escaped_line(family: str, size: int) -> str:
    """One sample line of `family` whose label is `size` bytes of escaped quotes."""
    return f'{family}{{engine="{ESCAPED * (size // 2)}"}} 1\n'


def hostile_scrape(prefix: str, size: int = 8 * MIB - 4096) -> tuple[str, int]:
    """`size` bytes of /metrics: the real counters, a 1 MiB escaped label in two families specview
    reads and one it does not, then 8 KiB escaped labels of a family read up to the size. With
    the number of lines specview must skip for their length."""
    parts = [counters(prefix), escaped_line(f"{prefix}:spec_decode_num_drafts_total", MIB),
             escaped_line(f"{prefix}:spec_decode_num_accepted_tokens_per_pos_total", MIB),
             escaped_line(f"{prefix}:request_latency_seconds_bucket", MIB)]
    line = escaped_line(f"{prefix}:spec_decode_num_draft_tokens_total", 8192)
    repeats = (size - sum(map(len, parts))) // len(line)
    return "".join(parts) + line * repeats, 2 + repeats


def llama(metrics: str) -> Scenario:
    """A llama-server (owned_by llamacpp, /props, /slots) whose /metrics is `metrics`."""
    return Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                    get={"/props": (200, "application/json", LLAMA_PROPS.encode()),
                         "/slots": (200, "application/json", b"[]"),
                         "/metrics": (200, "text/plain; version=0.0.4", metrics.encode())})


def vllm(metrics: str, events: list[object] | None = None) -> Scenario:
    """A vLLM (owned_by vllm, /version) whose /metrics is `metrics`, streaming `events`."""
    return Scenario(models=[{"id": "m", "owned_by": "vllm"}],
                    get={"/version": (200, "application/json", b'{"version": "0.0-hostile"}'),
                         "/metrics": (200, "text/plain; version=0.0.4", metrics.encode())},
                    events=list(events or []))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def watch(server: HostileServer, scenario: Scenario, home: Path, *args: str) -> Run:
    server.scenario = scenario
    return run_cli(["watch", "--url", server.root, "--count", "1", "--interval", "0.05", *args],
                   base_env(home), timeout=TIME_LIMIT)


def long_lines_note(lines: int) -> dict[str, object]:
    values = {"lines": str(lines), "bytes": str(MAX_LINE_BYTES)}
    return {"id": "metrics_long_lines", "values": values, "text": fill("note.metrics_long_lines", **values)}


def test_a_1_mb_escaped_label_is_skipped_and_said(server: HostileServer, tmp_path: Path) -> None:
    metrics = counters("llamacpp") + escaped_line("llamacpp:spec_decode_num_drafts_total", 10**6)
    run = watch(server, llama(metrics), tmp_path, "--json")
    assert not run.timed_out, f"still parsing after {run.elapsed:.0f} s"
    assert run.returncode == 0, run.err
    (sample,) = json_lines(run.stdout)
    assert sample["notes"] == [long_lines_note(1)]
    assert sample["drafts"] == 0 and sample["per_position"] == [0, 0]  # the real counters still read
    assert run.err == ""


def test_an_8_mib_hostile_scrape_is_watched_in_bounded_time(server: HostileServer, tmp_path: Path) -> None:
    metrics, skipped = hostile_scrape("vllm")
    assert 7 * MIB < len(metrics) < 8 * MIB  # within what specview reads of one answer
    run = watch(server, vllm(metrics), tmp_path, "--json")
    assert not run.timed_out, f"still parsing after {run.elapsed:.0f} s"
    assert run.returncode == 0, run.err
    (sample,) = json_lines(run.stdout)
    assert sample["notes"] == [long_lines_note(skipped)]
    assert sample["per_position"] == [0, 0] and sample["violations"] == []
    human = watch(server, vllm(metrics), tmp_path)  # the line a person reads, once per poll
    assert human.returncode == 0, human.err
    assert f"  ! /metrics lines skipped (over 2048 bytes): {skipped}" in human.out.splitlines()
    assert_terminal_clean(human.stdout)
    assert_no_secret(tmp_path)


def release_after_a_poll(server: HostileServer, deadline: float = TIME_LIMIT) -> threading.Thread:
    """A thread that ends the stalled stream once /metrics was scraped while it ran (the live
    path's poller), or after `deadline` s."""
    def wait() -> None:
        stop = time.monotonic() + deadline
        while time.monotonic() < stop and not server.release.is_set():
            requests = list(server.requests)
            posts = [i for i, r in enumerate(requests) if r.startswith("POST")]
            if posts and any(r.startswith("GET /metrics") for r in requests[posts[-1]:]):
                break
            time.sleep(0.05)
        server.release.set()

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    return thread


def test_the_live_vllm_path_reads_an_8_mib_hostile_scrape_in_bounded_time(server: HostileServer,
                                                                          tmp_path: Path) -> None:
    """`bench` against a vLLM: /metrics read when detecting, before and after the stream, and
    polled every second while it runs (the stream stalls until the poller has scraped)."""
    metrics, _ = hostile_scrape("vllm")
    scenario = vllm(metrics, [chat_chunk("a", usage={"completion_tokens": 1}),
                              chat_chunk("b", usage={"completion_tokens": 2})])
    scenario.stall = True
    server.scenario = scenario
    server.requests.clear()
    releaser = release_after_a_poll(server)
    try:
        run = run_cli(["bench", "--url", server.url, "--max-tokens", "16", "--json"], base_env(tmp_path),
                      timeout=TIME_LIMIT)
    finally:
        server.release.set()
        releaser.join()
        server.release.clear()
    assert not run.timed_out, f"still parsing after {run.elapsed:.0f} s"
    assert run.returncode == 0, run.err
    (stats,) = json_lines(run.stdout)
    assert stats["text"] == "ab" and stats["tokens"] == 2
    post = next(i for i, r in enumerate(server.requests) if r.startswith("POST"))
    during_and_after = [r for r in server.requests[post:] if r.startswith("GET /metrics")]
    assert len(during_and_after) >= 2  # polled while the stream ran, and read after it


def test_the_live_run_notes_the_skipped_lines(server: HostileServer) -> None:
    """The side panel's notes (BackendInfo.notes) of a live vLLM run say how many lines were skipped."""
    metrics, skipped = hostile_scrape("vllm")
    server.scenario = vllm(metrics, [chat_chunk("a", usage={"completion_tokens": 1})])
    backend = make_backend(RunSpec(max_tokens=8, options=RemoteOptions(url=server.url)))
    try:
        list(backend.rounds(threading.Event()))
        assert backend.server_counters() is not None  # the real counters were read
        notes = [n for n in backend.info.notes if n.id.startswith("metrics_")]
    finally:
        backend.close()
    assert notes == [Note("metrics_long_lines", {"lines": str(skipped), "bytes": str(MAX_LINE_BYTES)})]


async def test_the_monitor_notifies_the_skipped_lines_once(server: HostileServer) -> None:
    """In the monitor: one notification (not one per poll), and the checks line says it."""
    server.scenario = llama(counters("llamacpp") + escaped_line("llamacpp:spec_decode_num_drafts_total", 10**6))
    app = WatchApp(ServerWatch(server.root), interval=0.05)
    said = fill("note.metrics_long_lines", lines=1, bytes=MAX_LINE_BYTES)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        for _ in range(500):
            if getattr(screen, "samples_shown", 0) >= 5:
                break
            await pilot.pause(0.02)
        assert screen.samples_shown >= 5  # type: ignore[attr-defined]
        seen: set[str] = set()  # every notification of it shown at any look, told apart by identity

        def look() -> set[str]:
            seen.update(n.identity for n in notices(app) if n.message == said)
            return seen

        # the pump draws what the thread found: wait for it, then five polls more
        await wait_until(pilot, lambda: bool(look()) and said in str(screen.query_one("#watch-checks").render()))
        later = screen.samples_shown + 5  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: bool(look()) and screen.samples_shown >= later)  # type: ignore[attr-defined]
        assert len(look()) == 1


def test_lines_beyond_the_read_budget_are_counted_not_parsed() -> None:
    """8 MiB of ordinary counter lines: at most MAX_READ_CHARS of them reach the parser, the rest
    are counted (metrics_many_lines), and the text is never split into millions of strings."""
    line = 'vllm:spec_decode_num_drafts_total{engine="7"} 1\n'
    text = counters("vllm") + line * (8 * MIB // len(line))
    samples = read_samples(text, ("vllm:spec_decode_",))
    parsed = len(samples.rows)
    assert parsed * len(line) <= MAX_READ_CHARS + len(counters("vllm"))
    assert parsed + samples.extra_lines == 5 + 8 * MIB // len(line)  # every sample line: parsed or counted
    assert [n.id for n in samples.notes()] == ["metrics_many_lines"]
    got = draft_counters(samples, "vllm")
    assert got is not None and got.per_position == (15, 10)  # the first lines (the real counters) were read


def test_a_family_named_inside_a_label_is_not_a_line_of_it() -> None:
    """Only a metric name at a line's start counts: the name inside another line's label does not."""
    text = 'other{x="\\nvllm:spec_decode_num_drafts_total 99"} 1\n' + counters("vllm")
    got = draft_counters(read_samples(text, ("vllm:spec_decode_",)), "vllm")
    assert got is not None and got.drafts == 20
