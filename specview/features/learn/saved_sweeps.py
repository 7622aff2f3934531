"""The user's last saved sweeps as Learn screens 10 and 11 draw them: the points, None when none was
saved, or the reason (str) the saved file could not be read — a screen says so, it never fails."""

from __future__ import annotations

from specview.features.sweep.model import LoadSweep
from specview.features.sweep.saved import GammaMeasured, saved_gamma, saved_load


def read_gamma_sweep() -> tuple[GammaMeasured, ...] | str | None:
    try:
        return saved_gamma()
    except ValueError as exc:
        return str(exc)


def read_load_sweep() -> LoadSweep | str | None:
    try:
        return saved_load()
    except ValueError as exc:
        return str(exc)
