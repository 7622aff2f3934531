"""The run's calibrations folded into one: the mean costs a measured speedup divides by, their spread,
and the calibrations set aside because the machine was busy while they were timed.

A later basis replaces an earlier one (a measured calibration after an assumed one starts the
fold afresh). A measured calibration whose own repeats say the machine was busy
(kernel/contended.py) is counted and its reason kept, its costs left out of the baseline, c and v.
"""

from __future__ import annotations

import statistics

from specview.kernel.calibration import Basis, Calibration
from specview.kernel.contended import calibration_contended
from specview.kernel.machine_load import Load, busiest
from specview.kernel.spread import CalibrationSpreads
from specview.texts.catalog import Phrase


def _extremes(repeats: tuple[tuple[float, ...], ...]) -> tuple[tuple[float, ...], ...]:
    """The repeats of the fastest and the slowest plain step by median (one when they are the same):
    what kernel/contended.py compares, kept without keeping every calibration."""
    fast = min(repeats, key=statistics.median)
    slow = max(repeats, key=statistics.median)
    return (fast,) if fast is slow else (fast, slow)


class CalibrationFold:
    """Fold Calibrations one at a time; `calibration()` is their mean under the latest basis."""

    def __init__(self) -> None:
        self.count = 0  # every calibration folded, set aside or not
        self._basis: Basis | None = None
        self._context: int | None = None
        self._plain = [0.0, 0]
        self._costs: list[list[float]] = []  # [sum, n] per k
        self.spreads = CalibrationSpreads()
        self._load: Load | None = None  # the busiest calibration's (kernel/machine_load.py)
        self.plain_repeats: tuple[tuple[float, ...], ...] = ()  # the fastest and slowest plain step's repeats
        self.set_aside = 0  # measured calibrations left out: taken while the machine was busy
        self.set_aside_reason: Phrase | None = None  # the last one's reason (kernel/contended.py)

    def add(self, cal: Calibration) -> None:
        """Fold in what plain decoding costs (the rules are in the module docstring)."""
        if cal.basis != self._basis:
            self._basis = cal.basis
            self._plain = [0.0, 0]
            self._costs = []
            self.spreads = CalibrationSpreads()
            self._load = None
            self.plain_repeats = ()
            self.set_aside = 0
            self.set_aside_reason = None
        self.count += 1
        self._context = cal.context
        self._load = busiest((self._load, cal.load))
        busy = calibration_contended(cal) if cal.basis is Basis.MEASURED else None
        if busy is not None:
            self.set_aside += 1
            self.set_aside_reason = busy
            return
        self.spreads.add(cal.plain_s, cal.plain_samples_s, cal.verify_costs_s, cal.verify_samples_s)
        if cal.plain_samples_s:
            self.plain_repeats = _extremes((*self.plain_repeats, cal.plain_samples_s))
        if cal.plain_s is not None:
            self._plain[0] += cal.plain_s
            self._plain[1] += 1
        for k, cost in enumerate(cal.verify_costs_s):
            if k == len(self._costs):
                self._costs.append([0.0, 0])
            self._costs[k][0] += cost
            self._costs[k][1] += 1

    def calibration(self) -> Calibration | None:
        """The mean of the calibrations kept under the latest basis (None before the first)."""
        if self._basis is None:
            return None
        plain_sum, plain_n = self._plain
        costs = []
        for total, n in self._costs:
            if not n:
                break
            costs.append(total / n)
        return Calibration(self._basis, plain_sum / plain_n if plain_n else None, tuple(costs), self._context,
                           load=self._load)
