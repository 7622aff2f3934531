"""Σ exp(row − top) over a float32 logits row, in llama.cpp's own vectorised softmax loop.

The greedy verdict reports p = softmax(row)[t] for every shown token, and that needs the sum
over the whole 262k-wide row (Gemma 3's logits span ≈ 50 nats, so no cut-off below the max
leaves out few enough entries). numpy's float32 exp is the costly part here (0.5–0.7 ms a
row, 2–3 ns an entry); ggml's `ggml_vec_soft_max_f32` (ggml-cpu/vec.cpp: AVX2/AVX-512/NEON
`ggml_v_expf`, each 8- or 16-lane partial sum added in double) does the same in ≈ 0.2 ms. It
is exported by libggml-cpu, the library llama-cpp-python already loaded, but not declared by
its bindings: it is declared here, as threads.py declares the threadpool functions.

Not bit for bit numpy's: `ggml_v_expf` is within a few ulp of expf and the lanes are summed in
float32 before the double accumulation, so the sum is within 1e-6 relative of
`np.exp(row - top).sum(dtype=np.float64)` (9e-8 the worst measured on real Gemma rows; the unit
tests hold it to 1e-6). p is what the token view and the inspector show, to three or four digits;
which token is emitted is decided by the argmax alone, so nothing lossless depends on it.

Rows that are not contiguous float32, a non-finite max, or a build without the library (a
CPU-variant build names it differently) take numpy's path, which is the reference.
"""

from __future__ import annotations

import ctypes
import math
import sys
import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from specview.backends.local.lib import llama_lib
from specview.compat.llama_compat import llama_library_folder
from specview.kernel.errors import BackendError

_scratch = threading.local()
_lock = threading.Lock()
_soft_max: Any = None  # the declared function, False once looked for and not found


def exp_sum(row: npt.NDArray[np.floating], top: float) -> float:
    """Σ exp(row − top), `top` being row's max (the caller has it: the argmax's value)."""
    fast = _function() if row.dtype == np.float32 and row.ndim == 1 and row.flags.c_contiguous else None
    if fast is None or not math.isfinite(top):
        return reference_exp_sum(row, top)
    out = _buffer(len(row))
    return float(fast(len(row), out.ctypes.data, row.ctypes.data, top))


def reference_exp_sum(row: npt.NDArray[np.floating], top: float) -> float:
    """numpy's float64 sum of float32 exps, in one buffer kept per thread (two fresh 1 MB
    temporaries per row cost page faults every round, more than the subtraction itself)."""
    if row.dtype != np.float32 or row.ndim != 1:
        return float(np.exp(row - top).sum(dtype=np.float64))
    out = _buffer(len(row))
    np.subtract(row, np.float32(top), out=out)
    np.exp(out, out=out)
    return float(out.sum(dtype=np.float64))


def _buffer(n: int) -> npt.NDArray[np.float32]:
    """A float32 scratch row of at least `n` entries, one per thread (two local runs side by
    side verify on two threads at once)."""
    buf: npt.NDArray[np.float32] | None = getattr(_scratch, "buf", None)
    if buf is None or len(buf) < n:
        buf = _scratch.buf = np.empty(n, dtype=np.float32)
    return buf[:n]


def _function() -> Any:
    """ggml_vec_soft_max_f32(n, y, x, max) -> double, or None where it cannot be found."""
    global _soft_max
    if _soft_max is None:
        with _lock:
            if _soft_max is None:
                _soft_max = _declare() or False
    return _soft_max or None


def _declare() -> Any:
    try:
        folder = llama_library_folder(llama_lib())
    except BackendError:  # no llama-cpp-python: numpy's sum it is
        return None
    name = {"win32": "ggml-cpu.dll", "darwin": "libggml-cpu.dylib"}.get(sys.platform, "libggml-cpu.so")
    try:
        fn = ctypes.CDLL(str(folder / name)).ggml_vec_soft_max_f32
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float]
    fn.restype = ctypes.c_double
    return fn
