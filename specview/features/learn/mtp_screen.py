"""7 · MTP, two schools: parallel heads vs sequential modules, stepped; P(draft k kept) per preset, adding up to τ."""

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
from specview.features.learn.explain.mtp import DIAGRAM_STEPS, SHOWN_K, mtp_numbers, mtp_numbers_for
from specview.features.learn.registry import Lesson
from specview.features.learn.tags import tag
from specview.methods.registry import methods
from specview.texts.catalog import fill
from specview.widgets.bindings import bind
from specview.widgets.grid import Cell, Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

# A diagram line is a list of (text, the steps that light it up); the last step lights everything.
Piece = tuple[str, frozenset[int]]
SCHOOLS = ("parallel", "sequential")  # the two diagrams, each with its step's caption


def _state(value: float) -> str:
    return "good" if value >= 0.7 else "warn" if value >= 0.4 else "bad"


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
    DEFAULT_CSS = "MtpScreen .mtp-step { margin: 0 0 1 0; }"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.step = 0
        self.preset_ids: list[str] = []

    def body(self) -> ComposeResult:
        self.preset_ids = self.listed_presets()
        for name in SCHOOLS:
            yield Static(id=f"diagram-{name}", classes="learn-numbers")
            yield Prose(id=f"step-{name}", classes="mtp-step")
        yield Slider(self.ts("preset"), list(range(len(self.preset_ids))), 0, lambda i: preset_name(self.preset_ids[i]),
                     id="preset")
        yield Grid(cell_width=6, id="survival")
        yield Static(self.ts("table"), classes="learn-note")  # below the table: at 80×24 the table stays above the fold
        yield Static(id="numbers", classes="learn-numbers")
        yield Prose(id="about", classes="learn-note")
        yield Prose(id="deepseek", classes="learn-note")
        yield Prose(self.ts("note"), classes="learn-note")

    def numbers(self) -> dict[str, Any]:
        return mtp_numbers(self.step, self.query_one(Slider).value, self.preset_ids)

    def refresh_numbers(self) -> None:
        n = self.numbers()
        for name in SCHOOLS:
            self.query_one(f"#diagram-{name}", Static).update(self._diagram(name, n["step"]))
            self.query_one(f"#step-{name}", Prose).update(
                f"▶ {n['step'] + 1}/{DIAGRAM_STEPS} " + self.ts(f"step.{name}.{n['step']}"))
        rows, cells = [], []
        for row in n["presets"]:
            rows.append(f"{preset_name(row['id'])} ({self._school(row['method'])})")
            terms = row["printed"]["terms"]
            cells.append([Cell(terms[k], _state(float(terms[k]))) if k < len(terms) else Cell("", "off")
                          for k in range(SHOWN_K)])
        self.query_one(Grid).set(rows, [f"k={k + 1}" for k in range(SHOWN_K)], cells, selected=n["selected"])
        chosen = n["presets"][n["selected"]]
        self.show_pairs("numbers", self._pairs(chosen))
        self.query_one("#about", Prose).update("\n".join(self._notes(chosen, n["medusa_heads"])))
        figures = {f["name"]: f"{f['value']} {tag(f['kind'], self.lang)}" for f in n["deepseek_v3"]}
        self.query_one("#deepseek", Prose).update(fill("learn.mtp.deepseek", self.lang, **figures))

    def _pairs(self, row: dict[str, Any]) -> list[tuple[str, str]]:
        """a_k, S_k (and where the draft length varies, the reach and R_k), then τ as 1 + the printed terms."""
        kind, printed = row["kind"], row["printed"]
        more = " …" if row["gamma"] > SHOWN_K else ""

        def line(values: list[str], origin: str) -> str:
            return " ".join(values) + more + "  " + tag(origin, self.lang)

        def two(values: list[float]) -> list[str]:
            return [f"{x:.2f}" for x in values[:SHOWN_K]]

        chain = kind in ("chain", "tree", "parallel")  # no reach below 1: the terms are S_k themselves
        pairs = [(self.ts(f"row.a.{kind}"), line(two(row["acceptance"]), row["acceptance_kind"])),
                 (self.ts(f"row.s.{kind}"), line(printed["terms"] if chain else two(row["survival"]),
                                                 "assumed" if kind == "parallel" else "derived"))]
        if kind == "mixture":
            pairs.append((self.ts("row.d.mixture"), f"{row['match_rate']:.3f}  " + tag(row["reach_kind"], self.lang)))
        elif not chain:
            pairs.append((self.ts(f"row.d.{kind}"), line(two(row["reach"]), row["reach_kind"])))
        if not chain:
            pairs.append((self.ts("row.r.mixture" if kind == "mixture" else "row.r.depth"),
                          line(printed["terms"], "derived")))
        tail = "" if printed["tail"] is None else self.ts(
            "tau_tail", tail=printed["tail"], first=printed["tail_from"], last=printed["tail_to"])
        tau = self.ts("tau_bound" if row["tau_bound"] else "tau_sum", total=printed["total"],
                      term="S_k" if chain else "R_k", sum=printed["shown_sum"], tail=tail)
        pairs.append((self.ts("tau"), tau + "  " + tag("derived", self.lang)))
        return pairs

    def _notes(self, row: dict[str, Any], medusa: dict[str, Any]) -> list[str]:
        """What the selected preset's numbers are, in words (its kind), where a chain alone would mislead."""
        kind = row["kind"]
        if kind == "mixture":
            return [self.ts("about.mixture", m=row["match_rate"], gamma=row["gamma"])]
        if kind in ("variable-depth", "verify-length"):
            return [self.ts(f"about.{kind}", gamma=row["gamma"])]
        if kind == "parallel":
            return [self.ts("about.parallel", marginal=" ".join(f"{x:.2f}" for x in medusa["marginal"]))]
        return []

    def _school(self, method: str) -> str:
        """The drafter's school, in the words its method unit gives (specview/methods/<id>/texts.*)."""
        return methods()[method].school_in(self.lang)

    def _diagram(self, name: str, step: int) -> Text:
        """One school's title and diagram, the pieces lit at this step; its caption is a Prose below (Chinese wraps)."""
        trunk, head = self.ts("trunk"), self.ts("head")
        out = Text(self.ts(f"title.{name}") + "\n", style="bold")
        for i, pieces in enumerate((parallel if name == "parallel" else sequential)(trunk, head)):
            if i:
                out.append("\n")
            for text, steps in pieces:
                out.append(text, style="bold reverse" if step in steps else "dim")
        return out

    def action_next(self) -> None:
        self.step = (self.step + 1) % DIAGRAM_STEPS
        self.refresh_numbers()



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    """R_k = P(D ≥ k)·Π a_i worked out from the preset file, and 1 + Σ R_k against the preset's τ."""
    preset = load_presets()[s.preset_ids[slider_values(s)["preset"]]]
    a = preset.acceptance_at(preset.temperature)
    weights = preset.shape.depth
    at_least = ([sum(weights[k:]) for k in range(1, len(a) + 1)] if weights is not None
                else [preset.match_rate if preset.match_rate is not None else 1.0] * len(a))
    kept = [at_least[k - 1] * math.prod(a[:k]) for k in range(1, len(a) + 1)]
    row = n["presets"][n["selected"]]
    return [("selected", (n["selected"], row["id"], n["step"]), (slider_values(s)["preset"], preset.id, s.step)),
            ("survival", row["survival"], [near(math.prod(a[:k])) for k in range(1, len(a) + 1)]),
            ("kept", row["kept"], [near(x) for x in kept]),
            ("tau", row["tau"], near(preset_tau(preset.id)[1])),
            ("tau is 1 + Σ kept", 1 + sum(kept), near(preset_tau(preset.id)[1], 1e-9))]


def _probes(s: Any, n: dict[str, Any]) -> list[tuple[str, str]]:
    printed = n["presets"][n["selected"]]["printed"]
    return [(shown(s, "numbers"), " ".join(printed["terms"])), (shown(s, "numbers"), printed["total"]),
            (shown(s, "numbers"), printed["shown_sum"])]


CHECKS = LessonChecks(
    _independent, _probes,
    # Medusa heads' marginals .56 .32 .20 .15 .12: heads 1…k all right at most as often as the least of them
    lambda n: [("medusa", n["medusa_heads"]["survival_at_most"], [near(x) for x in (0.56, 0.32, 0.20, 0.15, 0.12)])],
    keys=("n", "n"))


LESSON = Lesson(7, "mtp", MtpScreen, lambda lang: mtp_numbers(), checks=CHECKS,
                preset_numbers=lambda lang, preset_id: mtp_numbers_for(preset_id))
