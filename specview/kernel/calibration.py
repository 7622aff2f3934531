"""Calibration: what plain decoding costs on a backend, the baseline a measured speedup divides by,
and where that number comes from (Basis)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from specview.boundary.bounds import (
    MAX_COUNTER,
    Invalid,
    mapping,
    optional_integer,
    optional_real,
    real,
    sequence,
    string,
)
from specview.boundary.text import shown
from specview.kernel import theory
from specview.kernel.machine_load import Load


class Basis(StrEnum):
    """Where plain decoding's cost, the measured speedup's baseline, comes from. The values are
    the words recordings, `bench --json` and the catalogs' `basis.*` ids use."""

    MEASURED = "measured"  # timed here, inside llama_decode, at the live context
    ASSUMED = "assumed"  # a model's assumption, e.g. the simulator's "verify ≈ 1 forward"
    GIVEN = "given"  # --baseline-tps
    PAIRED = "paired"  # a plain run on another server (bench --baseline-url)
    PLAIN_ROUNDS = "plain-rounds"  # the run's own plain rounds (kernel/overlay.py; never a calibration's)
    DEFINITION = "definition"  # a plain run (--no-spec) is its own baseline: 1× (overlay.py; never a calibration's)


BASES = (Basis.MEASURED, Basis.ASSUMED, Basis.GIVEN, Basis.PAIRED)  # what a Calibration may say
MAX_VERIFY_COSTS = 64  # k-token costs kept per calibration (γ is at most 32)
MAX_REPEATS = 64  # timings kept per cost and calibration (specview takes 3)


@dataclass(frozen=True, slots=True)
class Calibration:
    """What plain decoding costs on this backend: the baseline a measured speedup divides by.

    `basis` says where the numbers come from (one of BASES; see `Basis`).
    `plain_s` is one plain decoding step (seconds per token); `verify_costs_s[k-1]` the cost
    of one k-token target forward, k = 1 … len (empty when unknown).
    `plain_samples_s` and `verify_samples_s[k-1]` are the repeats each value is the median of,
    kept as timed (not as a mean and sd): a calibration times each cost only a few times, so
    its spread means something only pooled over the run's calibrations (kernel/spread.py), and
    the samples let any later reader pool them. Empty where nothing was repeated (an assumed or
    given cost) and in recordings made before they were kept, which then read as no spread.
    `load` is how busy the machine was while the costs were timed (kernel/machine_load.py: the
    busier of the readings before and after; None where it was not read, as in older recordings).
    """

    basis: Basis
    plain_s: float | None
    verify_costs_s: tuple[float, ...] = ()
    context: int | None = None
    plain_samples_s: tuple[float, ...] = ()
    verify_samples_s: tuple[tuple[float, ...], ...] = ()
    load: Load | None = None

    def __post_init__(self) -> None:
        if self.basis not in BASES:
            raise ValueError(f"calibration basis must be one of {', '.join(BASES)}, got {self.basis!r}")
        object.__setattr__(self, "basis", Basis(self.basis))  # the member even when given its word
        if self.plain_s is not None and not self.plain_s > 0:
            raise ValueError(f"plain_s must be > 0, got {self.plain_s}")
        if len(self.verify_costs_s) > MAX_VERIFY_COSTS:
            raise ValueError(f"at most {MAX_VERIFY_COSTS} verify costs, got {len(self.verify_costs_s)}")
        if any(not cost > 0 for cost in self.verify_costs_s):
            raise ValueError("verify costs must be > 0")
        if self.verify_samples_s and len(self.verify_samples_s) != len(self.verify_costs_s):
            raise ValueError(f"{len(self.verify_samples_s)} verify sample lists for {len(self.verify_costs_s)} costs")
        if self.plain_samples_s and self.plain_s is None:
            raise ValueError("plain samples without a plain step")
        for samples in (self.plain_samples_s, *self.verify_samples_s):
            if len(samples) > MAX_REPEATS or any(not s > 0 for s in samples):
                raise ValueError(f"samples must be at most {MAX_REPEATS} times > 0")

    @classmethod
    def timed(cls, plain: Sequence[float], verify: Sequence[Sequence[float]], context: int | None,
              load: Load | None = None) -> Calibration:
        """A measured calibration from its repeats: each value the median of its samples."""
        return cls(Basis.MEASURED, statistics.median(plain), tuple(statistics.median(k) for k in verify), context,
                   tuple(plain), tuple(tuple(k) for k in verify), load)

    def verify_ratio(self, gamma: int) -> float | None:
        """v(γ) = cost(γ+1) / cost(1), when both were measured (or assumed)."""
        return theory.verify_ratio(self.verify_costs_s, gamma)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "basis": self.basis,
            "plain_s": self.plain_s,
            "verify_costs_s": list(self.verify_costs_s),
            "context": self.context,
        }
        if self.plain_samples_s or self.verify_samples_s:  # only where there were repeats
            out["plain_samples_s"] = list(self.plain_samples_s)
            out["verify_samples_s"] = [list(k) for k in self.verify_samples_s]
        if self.load is not None:
            out["load"] = self.load.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Calibration:
        """A calibration read from outside (a recording): every field checked (bounds.Invalid names it).

        The samples and the load are optional: recordings made before they were kept have none."""
        data = mapping(data, "calibration")
        basis = string(data.get("basis"), "calibration.basis")
        if basis not in BASES:
            raise Invalid(f"calibration.basis is {shown(basis)}, expected one of {', '.join(BASES)}")
        costs = sequence(data.get("verify_costs_s", []), "calibration.verify_costs_s", MAX_VERIFY_COSTS)
        plain = sequence(data.get("plain_samples_s", []), "calibration.plain_samples_s", MAX_REPEATS)
        per_k = sequence(data.get("verify_samples_s", []), "calibration.verify_samples_s", MAX_VERIFY_COSTS)
        verify = tuple(_samples(k, f"calibration.verify_samples_s[{i}]") for i, k in enumerate(per_k))
        if verify and len(verify) != len(costs):
            raise Invalid(f"calibration.verify_samples_s has {len(verify)} lists for {len(costs)} costs")
        plain_s = optional_real(data.get("plain_s"), "calibration.plain_s", 1e-12)
        if plain and plain_s is None:
            raise Invalid("calibration.plain_samples_s without a plain_s")
        return cls(
            basis=Basis(basis),
            plain_s=plain_s,
            verify_costs_s=tuple(real(c, f"calibration.verify_costs_s[{i}]", 1e-12) for i, c in enumerate(costs)),
            context=optional_integer(data.get("context"), "calibration.context", 0, MAX_COUNTER),
            plain_samples_s=_samples(plain, "calibration.plain_samples_s"),
            verify_samples_s=verify,
            load=None if data.get("load") is None else Load.from_dict(data["load"], "calibration.load"),
        )


def _samples(data: Any, field: str) -> tuple[float, ...]:
    items = sequence(data, field, MAX_REPEATS)
    return tuple(real(s, f"{field}[{i}]", 1e-12) for i, s in enumerate(items))
