"""Number formats the Learn screens share (units chosen for the size of the value)."""

from __future__ import annotations


def size(n_bytes: float) -> str:
    """Bytes as GB/MB/kB with three significant digits."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes:.0f} B"


def rate(bytes_per_s: float) -> str:
    """Bandwidth as TB/s or GB/s."""
    return size(bytes_per_s) + "/s"


def flops(per_s: float) -> str:
    """Arithmetic throughput as TFLOP/s or GFLOP/s, three significant digits."""
    if per_s >= 1e12:
        return f"{per_s / 1e12:.4g} TFLOP/s"
    return f"{per_s / 1e9:.3g} GFLOP/s"


def duration(seconds: float) -> str:
    """Seconds as ms or µs."""
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def percent(share: float) -> str:
    """A share as a percentage with one decimal."""
    return f"{share * 100:.1f} %"


def count(value: float) -> str:
    """A parameter count as B/M/k."""
    for unit, scale in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.0f}"
