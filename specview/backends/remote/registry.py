"""Every server family specview knows, in detection order; `generic` comes last."""

from __future__ import annotations

from specview.backends.remote.generic import GENERIC
from specview.backends.remote.llama_server import LLAMA_SERVER
from specview.backends.remote.server_kind import ServerKind
from specview.backends.remote.sglang import SGLANG
from specview.backends.remote.vllm import VLLM

SERVER_KINDS: tuple[ServerKind, ...] = (LLAMA_SERVER, VLLM, SGLANG, GENERIC)


def server_ids() -> tuple[str, ...]:
    """The names `--server` accepts (besides `auto`)."""
    return tuple(kind.id for kind in SERVER_KINDS)


def kind_by_id(name: str) -> ServerKind | None:
    return next((kind for kind in SERVER_KINDS if kind.id == name), None)


def kind_by_owner(owned_by: str) -> ServerKind | None:
    """The family a /v1/models `owned_by` names, if any."""
    return next((kind for kind in SERVER_KINDS if owned_by.lower() in kind.owners), None)
