"""10 · How much faster? τ and the speedup from α, γ and c (the scaffold's first screen)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from specview.core.learn_numbers import speedup_numbers
from specview.learn.base import LearnScreen


class SpeedupScreen(LearnScreen):
    """Expected τ and speedup at the default α, γ, c (controls come with the explainer issue)."""

    def body(self) -> ComposeResult:
        yield Static("", id="learn-numbers", markup=False)

    def refresh_numbers(self) -> None:
        n = speedup_numbers()
        lines = [
            f"α {n['alpha']:.2f} · γ {n['gamma']} · c {n['c']:.2f}",
            f"{self.t('learn.expected_tau')} {n['expected_tau']:.3f}",
            f"{self.t('learn.speedup')} {n['speedup']:.3f}×",
        ]
        self.query_one("#learn-numbers", Static).update(Text("\n".join(lines)))
