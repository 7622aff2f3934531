"""The load sweep's client: N concurrent clients against a server, tokens and time measured.

Each client sends `requests` completions one after another (non-streamed `/v1/completions`,
T = 0, the same prompt, a different seed each); aggregate tok/s = every completion token ÷
the wall time from the first send to the last answer; per-request tok/s = the mean of each
request's completion tokens ÷ its latency. One warm-up request comes first (prompt cache,
lazy allocations). Errors end the sweep with the server's message (BackendError).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from specview.backends.remote.client import Connection
from specview.backends.remote.dialect import counter
from specview.backends.remote.server_values import server_values
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.api_key import ApiKey
from specview.boundary.bounds import MAX_ROUND_TOKENS
from specview.features.sweep.model import MAX_CONCURRENCY
from specview.kernel.errors import BackendError


@dataclass(frozen=True, slots=True)
class LoadResult:
    """One configuration at one concurrency."""

    concurrency: int
    requests: int
    tokens: int
    wall_s: float
    per_request: tuple[float, ...]  # tok/s of each request

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def mean_per_request(self) -> float:
        return sum(self.per_request) / len(self.per_request) if self.per_request else 0.0


class LoadClient:
    """One server under test."""

    def __init__(self, url: str, api_key: ApiKey | None = None, key_env: str | None = None,
                 model: str | None = None, timeouts: Timeouts | None = None) -> None:
        self._conn = Connection(url, api_key, key_env, timeouts)
        self._timeout = self._conn.timeouts.stream  # a whole completion, not streamed
        try:
            served = self._conn.served_models()
            if model is None and not served:
                raise BackendError("featerr.sweep.no_models", root=self._conn.root)
            self.model = model or next(iter(served))
        except BaseException:
            self._conn.close()
            raise
        self.root = self._conn.root

    def one(self, prompt: str, max_tokens: int, seed: int) -> tuple[int, float]:
        """(completion tokens, latency s) of one request."""
        body = {"model": self.model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0,
                "seed": seed, "stream": False}
        start = time.monotonic()
        reply = self._conn.post_json(f"{self._conn.api}/completions", body, "sending the load",
                                     timeout=self._timeout, model=self.model)
        latency = time.monotonic() - start
        usage = reply.get("usage") if isinstance(reply, dict) else None
        with server_values(self.root, "sending the load"):
            tokens = counter(usage.get("completion_tokens"), "usage.completion_tokens") if isinstance(usage, dict) \
                else None
        if tokens is None:
            raise BackendError("featerr.sweep.no_usage", root=self.root)
        if tokens > max_tokens + MAX_ROUND_TOKENS:  # a last round may overshoot a little, never more
            raise BackendError("featerr.sweep.too_many_tokens", root=self.root, tokens=tokens,
                               max_tokens=max_tokens)
        return tokens, latency

    def run(self, concurrency: int, requests: int, prompt: str, max_tokens: int) -> LoadResult:
        """`concurrency` clients, `requests` each."""
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise BackendError("featerr.sweep.concurrency", most=MAX_CONCURRENCY, got=concurrency)
        results: list[tuple[int, float]] = []
        errors: list[BaseException] = []
        lock = threading.Lock()

        def client(worker: int) -> None:
            for k in range(requests):
                try:
                    got = self.one(prompt, max_tokens, seed=worker * 1000 + k)
                except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                    with lock:
                        errors.append(exc)
                    return
                with lock:
                    results.append(got)

        threads = [threading.Thread(target=client, args=(w,), daemon=True) for w in range(concurrency)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - start
        if errors:
            error = errors[0]
            raise error if isinstance(error, BackendError) else BackendError("featerr.sweep.failed", reason=str(error))
        per_request = tuple(tokens / latency for tokens, latency in results if latency > 0)
        return LoadResult(concurrency, len(results), sum(t for t, _ in results), wall, per_request)

    def close(self) -> None:
        self._conn.close()
