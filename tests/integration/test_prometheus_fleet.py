"""`watch --prometheus` against a real Prometheus scraping real servers every second.

Two llama-servers run the tiny MTP model with different synthetic acceptance rates (a third runs
Gemma 3 270M with n-gram drafting), a real Prometheus scrapes them, and requests are sent to each.
The counts specview reads from Prometheus must equal what each server's own /metrics says over the
same span (the span starts and ends while the servers are idle, so the scrapes' alignment cannot
matter there: equal to the count), and window by window α from Prometheus is compared with α from
direct scrapes taken at each poll (they differ by what falls between a Prometheus scrape and the
direct one: measured and printed). A server stopped mid-test is down once Prometheus's next scrape
fails, and up again when it restarts. The real CPU vLLM, when installed, is checked the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from specview.backends.remote.metrics import DraftCounters, parse_draft_counters, parse_sums
from specview.features.watch.model import WatchModel, WatchSample
from specview.features.watch.model.fleet import InstanceReading, State
from specview.features.watch.source import ServerWatch
from specview.features.watch.source.prometheus import PrometheusFleet
from tests.support.llama_server import NGRAM_ARGS, RunningServer, free_port, llama_server, server_binary
from tests.support.mtp_gguf import write_tiny_mtp
from tests.support.prometheus import RunningPrometheus, prometheus, prometheus_binary
from tests.support.vllm_server import NGRAM_CONFIG, vllm_python, vllm_server
from tests.support.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)"),
    pytest.mark.skipif(prometheus_binary() is None, reason="prometheus not installed (make deps-debian)"),
]

RATES = {"fast": "0.9,0.8,0.7", "slow": "0.5,0.3,0.2"}
PROMPTS = ("the cat sat on", "a dog ran to the mat", "the cat and a dog")
# n-gram drafting needs text that repeats itself
REPEATING = ("one two three four five, one two three four five, one two three four five, one two",
             "red green blue, red green blue, red green blue, red green blue, red")


def mtp_args(rates: str) -> tuple[str, ...]:
    return ("--spec-type", "draft-mtp", "--spec-draft-n-max", "3", "--spec-synth-rates", rates)


@dataclass
class Fleet:
    prometheus: RunningPrometheus
    servers: dict[str, RunningServer]  # by name: fast, slow, gemma
    prefix: str = "llamacpp"

    def instance(self, name: str) -> str:
        return self.servers[name].root.removeprefix("http://")


def scraped_at(prom: RunningPrometheus, instance: str) -> float:
    """When Prometheus last scraped `instance` (0 before its first scrape)."""
    answer = httpx.get(f"{prom.url}/api/v1/query", params={"query": f'timestamp(up{{instance="{instance}"}})'},
                       timeout=5).json()
    result = answer["data"]["result"]
    return float(result[0]["value"][1]) if result else 0.0


def scrapes(prom: RunningPrometheus, instance: str) -> int:
    """How many times Prometheus has scraped `instance`."""
    query = f'count_over_time(up{{instance="{instance}"}}[1h])'
    result = httpx.get(f"{prom.url}/api/v1/query", params={"query": query}, timeout=5).json()["data"]["result"]
    return int(result[0]["value"][1]) if result else 0


def scraped_after(prom: RunningPrometheus, instances: list[str], t: float) -> None:
    """Until Prometheus has scraped every one of `instances` after wall-clock time `t`."""
    wait_until(lambda: all(scraped_at(prom, i) > t for i in instances), 15, f"no scrape after {t}")


def load(server: RunningServer, worker: int, requests: int, errors: list[str],
         prompts: tuple[str, ...] = PROMPTS, max_tokens: int = 48) -> None:
    with httpx.Client(timeout=120.0) as client:
        for k in range(requests):
            body = {"prompt": prompts[(worker + k) % len(prompts)], "max_tokens": max_tokens, "temperature": 0.0,
                    "seed": worker * 100 + k}
            try:
                client.post(f"{server.url}/completions", json=body).raise_for_status()
            except httpx.HTTPError as exc:
                errors.append(repr(exc))


def counters(server: RunningServer, prefix: str, tokens: str) -> tuple[DraftCounters, float]:
    text = httpx.get(f"{server.root}/metrics", timeout=5).text
    found = parse_draft_counters(text, prefix) or DraftCounters(0, 0, 0, ())
    return found, parse_sums(text, (tokens,)).get(tokens, 0.0)


def total(samples: list[WatchSample]) -> DraftCounters:
    width = max((len(s.per_position) for s in samples), default=0)
    return DraftCounters(sum(s.drafts for s in samples), sum(s.draft_tokens for s in samples),
                         sum(s.accepted for s in samples),
                         tuple(sum(s.per_position[k] if k < len(s.per_position) else 0 for s in samples)
                               for k in range(width)))


def alpha(c: DraftCounters) -> float | None:
    return WatchSample(0, 1, c.drafts, c.draft_tokens, c.accepted, c.per_position, None, None).alpha


def settled(server: RunningServer, prefix: str, tokens: str, running: str = "llamacpp:requests_processing") -> bool:
    """No request running, and the counters the same twice 0.3 s apart (a request's counts land
    when its slot is released)."""
    text = httpx.get(f"{server.root}/metrics", timeout=5).text
    if parse_sums(text, (running,)).get(running, 0) > 0:
        return False
    first = counters(server, prefix, tokens)
    time.sleep(0.3)
    return counters(server, prefix, tokens) == first


def by_instance(readings: tuple[InstanceReading, ...]) -> dict[str, InstanceReading]:
    return {r.instance: r for r in readings}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    model = write_tiny_mtp(tmp_path_factory.mktemp("prom") / "tiny-mtp.gguf")
    with ExitStack() as stack:
        servers = {name: stack.enter_context(llama_server(mtp_args(rates), model=str(model), parallel=2))
                   for name, rates in RATES.items()}
        servers["gemma"] = stack.enter_context(llama_server(NGRAM_ARGS))
        targets = [s.root.removeprefix("http://") for s in servers.values()]
        prom = stack.enter_context(prometheus(targets, scrape_s=1.0))
        yield Fleet(prom, servers)


def test_counts_from_prometheus_equal_each_servers_own_metrics(fleet: Fleet) -> None:
    names = list(fleet.servers)
    instances = [fleet.instance(n) for n in names]
    tokens_name = "llamacpp:tokens_predicted_total"
    before = {n: counters(fleet.servers[n], fleet.prefix, tokens_name) for n in names}
    scraped_after(fleet.prometheus, instances, time.time())  # Prometheus holds what `before` read
    wait_until(lambda: all(scrapes(fleet.prometheus, i) >= 4 for i in instances), 15, "too few scrapes for a history")
    created = time.time()
    source = PrometheusFleet(fleet.prometheus.url, match='{job="specview-test"}', window_s=1.0, retention_s=60)
    first = by_instance(source.poll())
    assert set(first) == set(instances)
    assert all(first[i].state is State.UP and first[i].engine == "llama-server" for i in instances)
    assert all(first[i].history and first[i].history[0].t < created - 1.0 for i in instances), \
        "the first poll brings the history from before specview started"

    direct = {n: ServerWatch(fleet.servers[n].url) for n in names}
    models = {n: WatchModel() for n in names}
    for n in names:
        models[n].feed(direct[n].scrape())
    errors: list[str] = []
    # the tiny MTP model is fast: long answers keep its requests running across several polls
    workers = [threading.Thread(target=load, args=(fleet.servers[n], w, 6, errors, *(
        (REPEATING, 48) if n == "gemma" else (PROMPTS, 160)))) for n in names for w in range(2)]
    for w in workers:
        w.start()
    seen: dict[str, list[WatchSample]] = {i: [] for i in instances}
    pairs: dict[str, list[tuple[float, float]]] = {n: [] for n in names}  # (α Prometheus, α direct) per window

    def poll() -> None:
        readings = by_instance(source.poll())
        for n, i in zip(names, instances, strict=True):
            mine = models[n].feed(direct[n].scrape())
            sample = readings[i].sample
            if sample is not None:
                seen[i].append(sample)
                if mine is not None and sample.alpha is not None and mine.alpha is not None:
                    pairs[n].append((sample.alpha, mine.alpha))

    while any(w.is_alive() for w in workers):
        poll()
        time.sleep(1.0)
    for w in workers:
        w.join()
    assert not errors, errors
    wait_until(lambda: all(settled(fleet.servers[n], fleet.prefix, tokens_name) for n in names), 20, "not idle")
    after = {n: counters(fleet.servers[n], fleet.prefix, tokens_name) for n in names}
    scraped_after(fleet.prometheus, instances, time.time())
    poll()
    for d in direct.values():
        d.close()
    source.close()

    for n, i in zip(names, instances, strict=True):
        delta = after[n][0].minus(before[n][0])
        got = total(seen[i])
        assert delta.draft_tokens > 0, n
        assert (got.drafts, got.draft_tokens, got.accepted) == (delta.drafts, delta.draft_tokens, delta.accepted), n
        assert got.per_position[:len(delta.per_position)] == delta.per_position, n
        assert sum(s.tokens or 0 for s in seen[i]) == after[n][1] - before[n][1], n
        assert alpha(got) == alpha(delta) and got.accepted / got.drafts == delta.accepted / delta.drafts, n
        diffs = [abs(a - b) for a, b in pairs[n]]
        if diffs:
            print(f"\n{n}: {len(diffs)} windows, α Prometheus vs direct: mean |Δ| {sum(diffs) / len(diffs):.3f}, "
                  f"max {max(diffs):.3f}, equal in {sum(d < 1e-9 for d in diffs)}")
    fast, slow = (alpha(total(seen[fleet.instance(k)])) for k in ("fast", "slow"))
    assert fast is not None and slow is not None and fast > slow + 0.1, (fast, slow)
    gemma = by_instance(PrometheusFleet(fleet.prometheus.url).poll())[fleet.instance("gemma")]
    assert gemma.engine == "llama-server" and gemma.state is State.UP


def test_down_then_up_with_prometheus_outliving_the_server(tmp_path: Path) -> None:
    model = write_tiny_mtp(tmp_path / "tiny-mtp.gguf")
    port = free_port()
    target = f"127.0.0.1:{port}"
    with prometheus([target], scrape_s=1.0, wait_up=False) as prom:
        with llama_server(mtp_args(RATES["fast"]), model=str(model), port=port):
            prom.wait_for_targets([target])
            source = PrometheusFleet(prom.url, window_s=1.0, retention_s=30)
            assert by_instance(source.poll())[target].state is State.UP
        stopped = time.monotonic()
        wait_until(lambda: by_instance(source.poll())[target].state is State.DOWN, 10, "never down")
        down_after = time.monotonic() - stopped
        reading = by_instance(source.poll())[target]
        assert reading.error is not None and "up = 0" in str(reading.error)
        assert down_after <= 2 * 1.0 + 1.0, down_after  # two scrape intervals, and a poll's slack
        with llama_server(mtp_args(RATES["fast"]), model=str(model), port=port):
            wait_until(lambda: by_instance(source.poll())[target].state is State.UP, 15, "never up again")
        source.close()


@pytest.mark.skipif(vllm_python() is None, reason="vLLM not installed (make vllm)")
def test_vllm_counts_from_prometheus_equal_its_own_metrics() -> None:
    with vllm_server(NGRAM_CONFIG) as server:
        target = server.root.removeprefix("http://")
        model = httpx.get(f"{server.url}/models", timeout=10).json()["data"][0]["id"]
        with prometheus([target], scrape_s=1.0) as prom:
            before = counters(server, "vllm", "vllm:generation_tokens_total")
            scraped_after(prom, [target], time.time())
            source = PrometheusFleet(prom.url, window_s=1.0, retention_s=60)
            (first,) = source.poll()
            assert first.engine == "vllm" and first.state is State.UP
            samples: list[WatchSample] = []
            with httpx.Client(timeout=300) as client:
                for k, prompt in enumerate(REPEATING * 2):
                    body = {"model": model, "prompt": prompt, "max_tokens": 24, "temperature": 0.0, "seed": k}
                    client.post(f"{server.url}/completions", json=body).raise_for_status()
                    samples += [r.sample for r in source.poll() if r.sample is not None]
            wait_until(lambda: settled(server, "vllm", "vllm:generation_tokens_total", "vllm:num_requests_running"),
                       30, "vLLM not idle")
            after = counters(server, "vllm", "vllm:generation_tokens_total")
            scraped_after(prom, [target], time.time())
            (last,) = source.poll()
            samples += [last.sample] if last.sample is not None else []
            source.close()
    delta, got = after[0].minus(before[0]), total(samples)
    assert delta.draft_tokens > 0
    assert (got.drafts, got.draft_tokens, got.accepted, got.per_position) == \
        (delta.drafts, delta.draft_tokens, delta.accepted, delta.per_position)
    assert sum(s.tokens or 0 for s in samples) == after[1] - before[1]
    assert last.gamma == NGRAM_CONFIG["num_speculative_tokens"] and not last.missing, last
