"""`--gamma auto`'s decision: the γ whose expected tokens per second is highest, from the run's own numbers.

A round at γ costs γc + v(γ) plain steps (c: one draft step ÷ one 1-token target forward;
v(γ): the (γ+1)-token verify forward ÷ a 1-token one, both measured by the calibration) and
yields τ(γ) = 1 + Σ_{k≤γ} Π_{j≤k} a_j tokens, a_j the conditional acceptance at position j
(kernel/theory.py's `tau_from_positions` and `speedup_of_tau`: the one formula). Plain decoding is
γ 0, speedup 1 by definition; the choice is the argmax over γ = 0 … `max_gamma`.

Positions the run has not drafted yet read the deepest measured one's acceptance (deeper drafts
of a chain that got that far are accepted about as often; the estimate corrects itself as soon
as the chosen γ reaches them). A γ > 0 is taken only when it beats plain decoding by `MARGIN`:
on a loaded machine the calibrated costs move by a few percent, and a γ that pays 1 % on paper
pays nothing measurable.

Pure and Textual-free: the local engine's controller (backends/local/gamma_auto.py) calls it,
the gauge and `bench --json` read its GammaChoice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from specview.kernel.theory import VerifyRatio, speedup_of_tau, tau_from_positions

if TYPE_CHECKING:
    from specview.texts.catalog import Phrase

AUTO_MAX_GAMMA = 8  # the γ auto considers: 1 … 8 (the calibration times forwards of up to 9 tokens)
MARGIN = 0.02  # a γ > 0 must beat plain decoding by 2 % (the calibration's own spread on a busy CPU)


class Why(StrEnum):
    """Why auto chose its γ (catalog ids `gammaauto.why.<value>`; words of `bench --json`)."""

    LEARNING = "learning"  # nothing measured yet (no calibration or no draft): the starting γ
    PAYS = "pays"  # the best γ beats plain decoding at the measured acceptance
    LOSES = "loses"  # every γ loses at the measured acceptance: off, and probe again later
    NEVER = "never"  # even a draft that is always accepted loses at every γ: off until the costs change
    SHORT = "short"  # the draft model's catch-up on the context costs more than the tokens left could win
    PROBE = "probe"  # off, drafting a few rounds to measure the acceptance again
    BUSY = "busy"  # the last calibration was taken on a busy machine (kernel/contended.py): γ kept, measuring again


@dataclass(frozen=True, slots=True)
class GammaChoice:
    """One decision: from round `round` on, γ is `gamma`, because `why`.

    `speedups[g]` is the expected speedup at γ = g (g = 0 … the largest γ with a measured v;
    `speedups[0]` = 1, plain decoding); `c` the draft cost it used and `acceptance` the
    conditional per-position acceptance (positions 1 … `AUTO_MAX_GAMMA`, extrapolated as above).
    Empty where nothing was measured yet. `busy` (with Why.BUSY) says why the last calibration was
    set aside (kernel/contended.py).
    """

    round: int
    gamma: int
    why: Why
    speedups: tuple[float, ...] = ()
    c: float | None = None
    acceptance: tuple[float, ...] = ()
    busy: Phrase | None = None

    @property
    def expected(self) -> float | None:
        """The expected speedup at the chosen γ (None while learning)."""
        return self.speedups[self.gamma] if self.gamma < len(self.speedups) else None

    def runners_up(self, n: int = 2) -> list[tuple[int, float]]:
        """The `n` best other γ with their expected speedups, best first (what the choice beat)."""
        others = [(g, s) for g, s in enumerate(self.speedups) if g != self.gamma]
        return sorted(others, key=lambda gs: -gs[1])[:n]

    def others(self) -> str:
        """`γ 3 1.40× · γ 5 1.38×`: the runners-up as the gauge note and the line write them."""
        return " · ".join(f"γ {g} {s:.2f}×" for g, s in self.runners_up()) or "—"

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "gamma": self.gamma,
            "why": str(self.why),
            "expected_speedup": None if self.expected is None else round(self.expected, 4),
            "speedups": [round(s, 4) for s in self.speedups],
            "c": None if self.c is None else round(self.c, 4),
            "acceptance": [round(a, 4) for a in self.acceptance],
            "busy": None if self.busy is None else {"id": self.busy.key},  # its words: report/run_json.py
        }


def extended(acceptance: Sequence[float], length: int = AUTO_MAX_GAMMA) -> tuple[float, ...]:
    """The measured conditional acceptance, positions beyond the deepest measured reading its value."""
    if not acceptance:
        raise ValueError("need the acceptance of at least one position")
    return tuple(acceptance[min(k, len(acceptance) - 1)] for k in range(length))


def expected_speedups(acceptance: Sequence[float], c: float, v: VerifyRatio,
                      max_gamma: int = AUTO_MAX_GAMMA) -> tuple[float, ...]:
    """Expected speedup at γ = 0 … max_gamma (ending at the first γ whose v was not measured)."""
    acc = extended(acceptance, max_gamma)
    out = [1.0]
    for gamma in range(1, max_gamma + 1):
        ratio = v(gamma)
        if ratio is None:
            break
        out.append(speedup_of_tau(tau_from_positions(acc[:gamma]), gamma, c, ratio))
    return tuple(out)


def best_of(speedups: Sequence[float], margin: float = MARGIN) -> int:
    """The γ of the highest expected speedup; 0 unless it beats plain decoding by `margin`
    (ties go to the smaller γ: the same speed for less work)."""
    best = max(range(len(speedups)), key=lambda g: (speedups[g], -g))
    return best if best > 0 and speedups[best] > 1.0 + margin else 0


def choose(acceptance: Sequence[float], c: float, v: VerifyRatio, *, at_round: int = 0,
           max_gamma: int = AUTO_MAX_GAMMA) -> GammaChoice:
    """The decision for these numbers: PAYS with the argmax, LOSES when every γ loses at this
    acceptance, NEVER when every γ would lose even at acceptance 1 (no text makes drafting pay)."""
    speedups = expected_speedups(acceptance, c, v, max_gamma)
    gamma = best_of(speedups)
    if gamma:
        return GammaChoice(at_round, gamma, Why.PAYS, speedups, c, extended(acceptance, max_gamma))
    ceiling = expected_speedups([1.0], c, v, max_gamma)
    why = Why.NEVER if best_of(ceiling) == 0 else Why.LOSES
    return GammaChoice(at_round, 0, why, speedups, c, extended(acceptance, max_gamma))
