"""A persistent ggml CPU threadpool per context, as llama-server attaches one.

Without it ggml builds a throw-away threadpool inside every llama_decode, spawning and
joining worker threads once per generated token. llama-cpp-python does not bind these
functions, so they are declared here over the libraries it already loaded. When the CPU
backend library cannot be found (unusual builds) the context keeps ggml's default.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from specview.compat.llama_compat import llama_library, llama_library_folder

GGML_MAX_N_THREADS = 512


class ThreadpoolParams(ctypes.Structure):
    """struct ggml_threadpool_params (ggml.h)."""

    _fields_ = [
        ("cpumask", ctypes.c_bool * GGML_MAX_N_THREADS),
        ("n_threads", ctypes.c_int),
        ("prio", ctypes.c_int),
        ("poll", ctypes.c_uint32),
        ("strict_cpu", ctypes.c_bool),
        ("paused", ctypes.c_bool),
    ]


_cpu: Any = None


def _cpu_library(lib: Any) -> Any:
    """libggml-cpu next to libllama, with the three threadpool functions declared (or None)."""
    global _cpu
    if _cpu is None:
        _cpu = False
        folder = llama_library_folder(lib)
        names = {"win32": ["ggml-cpu.dll"], "darwin": ["libggml-cpu.dylib"]}.get(sys.platform, ["libggml-cpu.so"])
        for name in names:
            try:
                cpu = ctypes.CDLL(str(folder / name))
                cpu.ggml_threadpool_params_default.argtypes = [ctypes.c_int]
                cpu.ggml_threadpool_params_default.restype = ThreadpoolParams
                cpu.ggml_threadpool_new.argtypes = [ctypes.POINTER(ThreadpoolParams)]
                cpu.ggml_threadpool_new.restype = ctypes.c_void_p
                cpu.ggml_threadpool_free.argtypes = [ctypes.c_void_p]
                cpu.ggml_threadpool_free.restype = None
                attach = llama_library(lib).llama_attach_threadpool
                attach.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
                attach.restype = None
                detach = llama_library(lib).llama_detach_threadpool
                detach.argtypes = [ctypes.c_void_p]
                detach.restype = None
                _cpu = cpu
                break
            except (OSError, AttributeError):
                continue
    return _cpu or None


class Threadpool:
    """One ggml threadpool attached to one llama context (for decode and batch)."""

    def __init__(self, lib: Any, ctx: Any, n_threads: int) -> None:
        self._lib = lib
        self._ctx = ctx
        self._pool: int | None = None
        cpu = _cpu_library(lib)
        if cpu is None:
            return
        params = cpu.ggml_threadpool_params_default(n_threads)
        pool = cpu.ggml_threadpool_new(ctypes.byref(params))
        if pool:
            self._pool = pool
            llama_library(lib).llama_attach_threadpool(ctx, pool, pool)

    def close(self) -> None:
        """Detach from the context (still alive) and free the threads."""
        if self._pool is not None and _cpu:
            llama_library(self._lib).llama_detach_threadpool(self._ctx)
            _cpu.ggml_threadpool_free(self._pool)
            self._pool = None
