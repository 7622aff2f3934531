"""Our llama.cpp loop as a backend unit: what `--target` or `--demo` selects.

Outside the engine's own child process the run is an EngineProcess (llama.cpp runs in a process of
its own: engine_process.py); inside it, the backend itself.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.unit import BackendUnit
from specview.kernel.backend import BackendKind

if TYPE_CHECKING:
    from specview.kernel.backend import Backend
    from specview.kernel.runspec import RunSpec


def make_local_backend(spec: RunSpec) -> Backend:
    from specview.backends.local.engine_host import ENGINE_CHILD_ENV

    if not os.environ.get(ENGINE_CHILD_ENV):
        from specview.backends.local.engine_process import EngineProcess

        return EngineProcess(spec)
    from specview.backends.local.backend import make_llama_backend

    return make_llama_backend(spec)


BACKEND = BackendUnit(BackendKind.LLAMA, LlamaRunOptions, make_local_backend)
