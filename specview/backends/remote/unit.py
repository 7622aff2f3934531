"""A remote OpenAI-compatible server as a backend unit: what `--url` selects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from specview.backends.remote.options import RemoteOptions
from specview.backends.unit import BackendUnit
from specview.kernel.backend import BackendKind

if TYPE_CHECKING:
    from specview.kernel.backend import Backend
    from specview.kernel.runspec import RunSpec


def make_remote_backend(spec: RunSpec) -> Backend:
    from specview.backends.remote.backend import make_openai_backend

    return make_openai_backend(spec)


BACKEND = BackendUnit(BackendKind.REMOTE, RemoteOptions, make_remote_backend,
                      no_tree="backenderr.factory.no_tree_openai", no_auto="backenderr.factory.auto_openai")
