"""How long specview waits on a server: the defaults, and the flag that changes each.

Every request has a wall-clock deadline (deadline.py closes its socket when it passes), not
only httpx's per-read timeout, which a server sending a byte a second never trips:

- `connect`: opening a connection (--connect-timeout, config `connect_timeout`).
- `request`: the whole of a plain request — the model list, /metrics, an error body — from
  sending it to the last byte of the answer (--request-timeout, `request_timeout`); the optional
  probes of detection (/props, /version, /slots…) get at most PROBE_S of it.
- `read`: a stream's first answer (its headers), then each next event: a stream that sends
  nothing, only comments or keep-alives, `100 Continue` lines or a trickle of bytes that never
  completes an event ends after this long (--read-timeout, `read_timeout`).
- `stream`: the whole of one completion, streamed or not (--stream-timeout, `stream_timeout`).
  Generous on purpose: a long generation on a slow machine is not a stuck one, and the
  `read` deadline already ends a stream that stopped making progress.
"""

from __future__ import annotations

from dataclasses import dataclass

PROBE_S = 5.0  # an optional endpoint (absent on many servers): never worth a long wait


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds; see the module docstring for what each bounds."""

    connect: float = 5.0
    request: float = 30.0
    read: float = 60.0
    stream: float = 3600.0

    @classmethod
    def given(cls, *, connect: float | None = None, request: float | None = None, read: float | None = None,
              stream: float | None = None) -> Timeouts:
        """The defaults, with what the command line or the config set (None: not set)."""
        d = cls()
        return cls(connect if connect is not None else d.connect, request if request is not None else d.request,
                   read if read is not None else d.read, stream if stream is not None else d.stream)

    @property
    def probe(self) -> float:
        return min(PROBE_S, self.request)
