"""What a Learn screen's test checks, declared by the screen's own module beside its Lesson.

The test (tests/app/test_learn_screens.py) opens every registered lesson in zh and en, moves each
control and presses each of the lesson's `keys`, and after each step runs the lesson's checks:

- `independent(screen, numbers)`: the numbers the screen computed, each beside the value worked
  out again from the formula the lesson teaches, with the controls read back from the screen's
  sliders and state (never from the numbers themselves) and the raw figures (datasheets, preset
  files) as the only shared input: never by calling the function the screen calls;
- `probes(screen, numbers)`: what must be on screen for those numbers (where to read, the text);
- `at_defaults(numbers)`: at the default controls, the same numbers worked out by hand.

A float compares with `near` (to rounding, or to the digits of a hand calculation).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.screen import Screen
from textual.widgets import Static

from specview.catalog.presets import Preset, load_presets
from specview.widgets.grid import Grid
from specview.widgets.slider import Slider

Checks = list[tuple[str, Any, Any]]  # (what, the screen's number, the value it must have)
Probes = list[tuple[str, str]]  # (the screen's text where to look, the text that must be in it)


@dataclass(frozen=True, slots=True)
class LessonChecks:
    """A lesson's checks (see the module's docstring); `before_keys` readies the screen for `keys`."""

    independent: Callable[[Any, dict[str, Any]], Checks]
    probes: Callable[[Any, dict[str, Any]], Probes]
    at_defaults: Callable[[dict[str, Any]], Checks] = lambda numbers: []
    keys: tuple[str, ...] = ()
    before_keys: Callable[[Any], None] | None = None


@dataclass(frozen=True, slots=True)
class Near:
    """A float that equals any number within max(rel·|value|, within) of it."""

    value: float
    within: float = 1e-12
    rel: float = 1e-9

    def __eq__(self, other: object) -> bool:
        if isinstance(other, bool) or not isinstance(other, int | float):
            return False
        return abs(other - self.value) <= max(self.rel * abs(self.value), self.within)

    def __hash__(self) -> int:
        return hash(self.value)


def near(value: float, within: float = 1e-12) -> Near:
    """`value`, compared to rounding or to the digits of a hand calculation (`within`)."""
    return Near(value, within)


def slider_values(screen: Screen[Any]) -> dict[str, Any]:
    """The controls as the screen's sliders hold them, by id."""
    return {s.id: s.value for s in screen.query(Slider) if s.id is not None}


def shown(screen: Screen[Any], widget_id: str) -> str:
    return str(screen.query_one(f"#{widget_id}", Static).render())


def grid_text(screen: Screen[Any]) -> str:
    return "\n".join(str(g.render()) for g in screen.query(Grid))


def forward_s(chip: Any, shape: Any, tokens: int) -> float:
    """Roofline time of a forward over `tokens` tokens: max(weight bytes ÷ bandwidth, 2·params·tokens ÷ FLOP/s)."""
    read = shape.active_params * shape.bits / 8 / chip.bandwidth
    return float(read if chip.bf16_flops is None else max(read, 2 * shape.active_params * tokens / chip.bf16_flops))


def chained_tau(acceptance: list[float]) -> float:
    """1 + Σ_k Π_{i≤k} a_i: the bonus, plus each draft that is reached and passes."""
    return 1 + sum(math.prod(acceptance[:k]) for k in range(1, len(acceptance) + 1))


def preset_tau(preset_id: str) -> tuple[Preset, float]:
    """A preset's τ: the chain's, or, where rounds draft k drafts with share w_k (a variable depth; a mixture
    (n-gram) whose rounds without a match draft none), Σ w_k · the chain's τ over its first k (1 at k = 0)."""
    preset = load_presets()[preset_id]
    chain = preset.acceptance_at(preset.temperature)
    return preset, sum(w * chained_tau(chain[:k]) for k, w in enumerate(drafted_shares(preset)))


def drafted_shares(preset: Preset) -> list[float]:
    """P(a round drafts k), k = 0…γ, read from the preset file: its depth weights (the longer ones
    drafting γ), or a mixture's share m of rounds with a match (γ drafts) against 1 − m (none)."""
    gamma, depth = preset.gamma, preset.shape.depth
    if depth is not None:
        return [*depth[:gamma], sum(depth[gamma:])] + [0.0] * (gamma + 1 - len(depth))
    m = 1.0 if preset.match_rate is None else preset.match_rate
    return [1 - m] + [0.0] * (gamma - 1) + [m]
