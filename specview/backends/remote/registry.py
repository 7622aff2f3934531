"""Every server family specview knows, in detection order; `generic` comes last."""

from __future__ import annotations

from specview.backends.remote.generic import GENERIC
from specview.backends.remote.llama_server import LLAMA_SERVER
from specview.backends.remote.server_kind import Probe, ServerFacts, ServerKind
from specview.backends.remote.sglang import SGLANG
from specview.backends.remote.vllm import VLLM
from specview.core.errors import BackendError

SERVER_KINDS: tuple[ServerKind, ...] = (LLAMA_SERVER, VLLM, SGLANG, GENERIC)


def server_ids() -> tuple[str, ...]:
    """The names `--server` accepts (besides `auto`)."""
    return tuple(kind.id for kind in SERVER_KINDS)


def kind_by_id(name: str) -> ServerKind | None:
    return next((kind for kind in SERVER_KINDS if kind.id == name), None)


def kind_by_owner(owned_by: str) -> ServerKind | None:
    """The family a /v1/models `owned_by` names, if any."""
    return next((kind for kind in SERVER_KINDS if owned_by.lower() in kind.owners), None)


def checked_kind(name: str | None) -> ServerKind | None:
    """The family `--server` names (None for auto); BackendError for one specview does not know."""
    if name is None or name == "auto":
        return None
    kind = kind_by_id(name)
    if kind is None:
        raise BackendError(f"--server must be one of {', '.join(server_ids())}, got {name!r}")
    return kind


def detect(conn: Probe, wanted: ServerKind | None, gamma: int | None) -> tuple[ServerKind, ServerFacts]:
    """The server family (`wanted`, or probed in registry order) and what it says about itself."""
    for kind in [wanted] if wanted is not None else SERVER_KINDS:
        identified = kind.identify(conn)
        if kind is wanted or kind.recognised(identified):
            return kind, kind.facts(conn, identified, gamma)
    raise AssertionError("the registry ends with a family that recognises every server")
