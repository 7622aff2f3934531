"""What only a run against an OpenAI-compatible server takes: the remote backend's options record.

RunSpec holds it as its `options` (kernel/runspec.py). Light: the parser imports it for its options.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from specview.kernel.backend import BackendKind
from specview.kernel.events import Basis
from specview.kernel.runspec import BackendOptions, RunSpec, declare


@dataclass(frozen=True, slots=True)
class RemoteOptions(BackendOptions):
    """A server run's address, model, dialect and deadlines (each field declares its option and header place)."""

    backend: ClassVar[str] = BackendKind.REMOTE

    url: str | None = field(default=None, metadata=declare("settings.url", "--url", selects=True))
    server: str | None = field(default=None, metadata=declare("settings.server", "--server"))
    raw: bool = field(default=False, metadata=declare("settings.raw", "--raw"))
    # recorded as the model the server named (BackendInfo.model)
    model: str | None = field(default=None, metadata=declare(option="--model"))
    # seconds to wait for a stream's next event, to connect, for a whole plain request, for a whole
    # stream (None: the defaults)
    read_timeout: float | None = field(default=None, metadata=declare(option="--read-timeout", config=True))
    connect_timeout: float | None = field(default=None, metadata=declare(option="--connect-timeout", config=True))
    request_timeout: float | None = field(default=None, metadata=declare(option="--request-timeout", config=True))
    stream_timeout: float | None = field(default=None, metadata=declare(option="--stream-timeout", config=True))
    # plain decoding's tokens/s on the remote side, the measured speedup's baseline:
    # given (--baseline-tps) or paired (measured by a plain run, bench --baseline-url)
    baseline_tps: float | None = field(default=None, metadata=declare(option="--baseline-tps"))
    baseline_basis: Basis = Basis.GIVEN


def remote_options(spec: RunSpec) -> RemoteOptions:
    """The spec's server options (the defaults for a spec of another backend)."""
    return spec.options if isinstance(spec.options, RemoteOptions) else RemoteOptions()
