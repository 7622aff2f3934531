"""llama-cpp-python's private names (an optional extra: only the local backend imports this module).

llama-cpp-python wraps most of libllama but not `llama_attach_threadpool`/`llama_detach_threadpool`,
and says nowhere public which libllama it loaded; the ggml CPU library beside it is found from there.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

from specview.compat import Private

PRIVATE = (
    Private("llama_cpp.llama_cpp", "_lib", "the libllama it loaded: llama_library"),
    Private("ctypes:CDLL", "_name", "the path a library was loaded from: llama_library_folder", instance=True),
)


def llama_library(lib: Any) -> ctypes.CDLL:
    """The libllama `lib` (the `llama_cpp.llama_cpp` module) loaded, for functions it does not wrap."""
    library: ctypes.CDLL = lib._lib
    return library


def llama_library_folder(lib: Any) -> Path:
    """The folder of the libllama `lib` loaded (its ggml libraries lie beside it)."""
    return Path(llama_library(lib)._name).parent
