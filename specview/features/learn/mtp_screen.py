"""7 · MTP, two schools: parallel heads vs sequential modules, stepped; survival P(drafts 1…k pass) per preset."""

from __future__ import annotations

import math
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from specview.catalog.presets import load_presets
from specview.features.learn.base import LearnScreen, preset_name
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    near,
    preset_tau,
    shown,
    slider_values,
)
from specview.features.learn.explain.mtp import DIAGRAM_STEPS, mtp_numbers
from specview.features.learn.registry import Lesson
from specview.features.learn.tags import tag
from specview.methods.registry import methods
from specview.texts.catalog import fill
from specview.widgets.bindings import bind
from specview.widgets.grid import Cell, Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

SHOWN_K = 8  # survival columns k = 1…8
# A diagram line is a list of (text, the steps that light it up); the last step lights everything.
Piece = tuple[str, frozenset[int]]


def _p(text: str, *steps: int) -> Piece:
    return (text, frozenset(steps) | {DIAGRAM_STEPS - 1})


def parallel(trunk: str, head: str) -> list[list[Piece]]:
    """Three heads on one hidden state; the rows line up under h₀ whatever the words' widths."""
    prefix = f"x≤t ─▶ [{trunk}] ─▶ "
    pad = " " * cell_len(prefix)
    return [
        [_p(prefix + "h₀", 0), _p(f" ─▶ [{head} 1]", 1), _p(" ─▶ t+1", 2)],
        [_p(pad + "h₀", 1), _p(f" ─▶ [{head} 2]", 1), _p(" ─▶ t+2", 2)],
        [_p(pad + "h₀", 1), _p(f" ─▶ [{head} 3]", 1), _p(" ─▶ t+3", 2)],
    ]


def sequential(trunk: str, head: str) -> list[list[Piece]]:
    """A chain of modules, each joining the last state with the embedding of the token before."""
    prefix = f"x≤t ─▶ [{trunk}] ─▶ "
    pad = " " * cell_len(prefix)
    return [
        [_p(prefix + f"h₀ ─▶ [{head}]", 0), _p(" ─▶ t+1", 0)],
        [_p(pad + "h₀ ⊕ e(t+1)", 1), _p(" ─▶ [MTP 1] ─▶ h₁", 1), _p(" ─▶ t+2", 1)],
        [_p(pad + "h₁ ⊕ e(t+2)", 2), _p(" ─▶ [MTP 2] ─▶ h₂", 2), _p(" ─▶ t+3", 2)],
    ]


class MtpScreen(LearnScreen):
    """`n` steps both diagrams; the preset slider picks the row of the survival table."""

    BINDINGS = [bind("n", "next", "learn.mtp.next")]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.step = 0
        self.preset_ids: list[str] = []

    def body(self) -> ComposeResult:
        self.preset_ids = self.listed_presets()
        yield Static(id="diagrams", classes="learn-numbers")
        yield Slider(self.ts("preset"), list(range(len(self.preset_ids))), 0, lambda i: preset_name(self.preset_ids[i]),
                     id="preset")
        yield Grid(cell_width=6, id="survival")
        yield Static(id="numbers", classes="learn-numbers")
        yield Prose(id="deepseek", classes="learn-note")
        yield Prose(self.ts("note"), classes="learn-note")

    def numbers(self) -> dict[str, Any]:
        return mtp_numbers(self.step, self.query_one(Slider).value, self.preset_ids)

    def refresh_numbers(self) -> None:
        n = self.numbers()
        self.query_one("#diagrams", Static).update(self._diagrams(n["step"]))
        rows, cells = [], []
        for row in n["presets"]:
            rows.append(f"{preset_name(row['id'])} ({self._school(row['method'])})")
            line = []
            for k in range(SHOWN_K):
                if k < len(row["survival"]):
                    value = row["survival"][k]
                    line.append(Cell(f"{value:.2f}", "good" if value >= 0.7 else "warn" if value >= 0.4 else "bad"))
                else:
                    line.append(Cell("", "off"))
            cells.append(line)
        self.query_one(Grid).set(rows, [f"k={k + 1}" for k in range(SHOWN_K)], cells, selected=n["selected"])
        chosen = n["presets"][n["selected"]]
        medusa = n["medusa_heads"]
        rate = chosen["match_rate"]
        how = "1 + Σ S_k" if rate is None else f"{rate:.2f}·{chosen['tau_chain']:.2f} + {1 - rate:.2f}"
        notes = [] if rate is None else [fill("learn.mtp.tau_mixture", self.lang, m=rate)]
        self.show_pairs("numbers", [
            (self.ts("acceptance"), " ".join(f"{a:.2f}" for a in chosen["acceptance"][:SHOWN_K])
             + "  " + tag(chosen["acceptance_kind"], self.lang)),
            (self.ts("survival"), " ".join(f"{s:.2f}" for s in chosen["survival"][:SHOWN_K])
             + "  " + tag("derived", self.lang)),
            (self.ts("tau"), f"{chosen['tau']:.3f} = {how}  " + tag("derived", self.lang)),
            (self.ts("medusa_marginal"), " ".join(f"{a:.2f}" for a in medusa["marginal"])
             + "  " + tag("cited", self.lang)),
            (self.ts("medusa_conditional"), " ".join(f"{a:.2f}" for a in medusa["conditional"])
             + "  " + tag("derived", self.lang)),
        ], notes)
        figures = {f["name"]: f"{f['value']} {tag(f['kind'], self.lang)}" for f in n["deepseek_v3"]}
        self.query_one("#deepseek", Prose).update(fill("learn.mtp.deepseek", self.lang, **figures))

    def _school(self, method: str) -> str:
        """The drafter's school, in the words its method unit gives (specview/methods/<id>/texts.*)."""
        return methods()[method].school_in(self.lang)

    def _diagrams(self, step: int) -> Text:
        trunk, head = self.ts("trunk"), self.ts("head")
        out = Text()
        for name, lines in (("parallel", parallel(trunk, head)), ("sequential", sequential(trunk, head))):
            out.append(self.ts(f"title.{name}") + "\n", style="bold")
            for pieces in lines:
                for text, steps in pieces:
                    out.append(text, style="bold reverse" if step in steps else "dim")
                out.append("\n")
            out.append(f"▶ {step + 1}/{DIAGRAM_STEPS} " + self.ts(f"step.{name}.{step}") + "\n\n")
        return out

    def action_next(self) -> None:
        self.step = (self.step + 1) % DIAGRAM_STEPS
        self.refresh_numbers()



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    preset = load_presets()[s.preset_ids[slider_values(s)["preset"]]]
    a = preset.acceptance_at(preset.temperature)
    row = n["presets"][n["selected"]]
    return [("selected", (n["selected"], row["id"], n["step"]), (slider_values(s)["preset"], preset.id, s.step)),
            ("survival", row["survival"], [near(math.prod(a[:k])) for k in range(1, len(a) + 1)]),
            ("tau", row["tau"], near(preset_tau(preset.id)[1]))]


CHECKS = LessonChecks(
    _independent,
    lambda s, n: [(shown(s, "numbers"), " ".join(f"{x:.2f}" for x in n["presets"][n["selected"]]["survival"][:8]))],
    # Medusa heads' marginals .56 .32 .20 .15 .12 ÷ the head before: .56, .32/.56, .20/.32, .15/.20, .12/.15
    lambda n: [("medusa", n["medusa_heads"]["conditional"], [near(x) for x in (0.56, 4 / 7, 0.625, 0.75, 0.8)])],
    keys=("n", "n"))


LESSON = Lesson(7, "mtp", MtpScreen, lambda lang: mtp_numbers(), checks=CHECKS)
