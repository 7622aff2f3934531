"""9 · Case studies: Qwen 3.6 and GLM-5.2 (MTP built in) against Gemma 4 (a drafter shipped beside)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult

from specview.boundary.text import sanitize
from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    grid_text,
    near,
    preset_tau,
    slider_values,
)
from specview.features.learn.explain.cases import COLUMNS, ROWS, case_numbers
from specview.features.learn.registry import Lesson
from specview.features.learn.tags import tag
from specview.kernel.errors import CliError
from specview.texts.catalog import fill
from specview.widgets.bindings import bind
from specview.widgets.grid import Cell, Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider


def _value(value: float | list[float] | None) -> str:
    """The preset's own figure for a claim, as the screen shows it."""
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(f"{v:.2f}" for v in value)
    return f"{value:.3g}"


def _acceptance(column: dict[str, Any]) -> str:
    """Per-position acceptance: `a × γ` when constant, else the first few values."""
    values = column["acceptance"]
    if len(set(values)) == 1:
        return f"{values[0]:.2f} × {len(values)}"
    return " ".join(f"{a:.2f}" for a in values[:3]) + (" …" if len(values) > 3 else "")


def _mark(claim: dict[str, Any]) -> str:
    """✓ reproduced, = the preset's own input, ≤ inside a bound, ≠ disagrees, · not comparable."""
    if claim["agrees"] is None:
        return "·"
    if not claim["agrees"]:
        return "≠"
    return {"input": "=", "bound": "≤"}.get(claim["role"], "✓")


class CasesScreen(LearnScreen):
    """One column per preset, cell by cell; ←/→ picks a column, Enter runs it, x shows the real commands."""

    BINDINGS = [
        bind("enter", "run", "learn.cases.run"),
        bind("x", "real", "learn.cases.real"),
    ]

    def body(self) -> ComposeResult:
        yield Slider(self.ts("column"), list(range(len(COLUMNS))), 0, lambda i: self.ts(f"name.{COLUMNS[i]}"),
                     id="column")
        yield Grid(cell_width=21, gap=2, id="cases")
        yield Prose(id="about", classes="learn-numbers")
        yield Prose(self.ts("note"), classes="learn-note")

    def numbers(self) -> dict[str, Any]:
        return case_numbers(self.query_one(Slider).value)

    def refresh_numbers(self) -> None:
        n = self.numbers()
        cols = n["columns"]
        rows = [self.ts(f"row.{r}") for r in ROWS]
        cells = [[Cell(self.ts(f"cell.{c['preset']}.{r}", gamma=c["gamma"], **c["form"])) for c in cols]
                 for r in ROWS]
        def tagged(c: dict[str, Any], kind: str, shown: str) -> str:
            return f"{shown} {tag(c['kinds'][kind], self.lang)}"

        numeric: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
            ("gamma", lambda c: tagged(c, "gamma", f"γ {c['gamma']}")),
            ("temperature", lambda c: tagged(c, "temperature", f"T {c['temperature']:g}")),
            ("acceptance", lambda c: tagged(c, "acceptance", _acceptance(c))),
            ("tau", lambda c: tagged(c, "tau", f"{c['tau']:.2f}")),
            ("c", lambda c: tagged(c, "c", f"{c['c']:g}")),
            ("speedup", lambda c: tagged(c, "speedup", f"{c['speedup']:.2f}×")),
            ("reported", lambda c: self.ts(f"reported.{c['preset']}", gamma=c["reported"]["gamma"],
                                           **c["reported"]["figures"])),
            ("reported_by", lambda c: f"{self._words(c['reported']['by'])} {tag('cited', self.lang)}"),
            ("sources", lambda c: self._words(c["sources"])),
            ("claims", self._claims),
        ]
        for key, show in numeric:
            rows.append(self.t("learn.cases.row.temperature") if key == "temperature" else self.ts(f"row.{key}"))
            cells.append([Cell(show(c), "info") for c in cols])
        chosen = n["selected"]
        self.query_one(Grid).set(rows, [self.ts(f"name.{c['preset']}") for c in cols], cells,
                                 emphasise=[(r, chosen) for r in range(len(rows))])
        preset = cols[chosen]["preset"]
        claims = [self.ts("claim_line", mark=_mark(x),
            text=sanitize(x["text_zh"] if self.lang == "zh" and x["text_zh"] else x["text"]),
            value=_value(x["preset"])) for x in cols[chosen]["claims"]]
        c_line = fill(f"learn.cases.c.{preset}", self.lang, c=cols[chosen]["c"], speedup=cols[chosen]["speedup"])
        self.query_one("#about", Prose).update("\n".join([self.ts(f"about.{preset}"), c_line, *claims,
                                                          self.t("learn.cases.legend"), self.ts("keys")]))

    def _words(self, tags: list[str]) -> str:
        """Source tags in words, listed the way the language lists (、 in Chinese)."""
        return self.ts("list_sep").join(self.ts(f"tag.{t}") for t in tags)

    def _claims(self, column: dict[str, Any]) -> str:
        """The cited figures by what they are to the preset: inputs and bounds are counted as such, never as figures
        that failed to reproduce; only the rest (checks) say how many were reproduced."""
        claims = column["claims"]
        parts = [self.ts(f"claims.{role}", n=n) for role in ("input", "bound")
                 if (n := sum(1 for x in claims if x["role"] == role))]
        checks = [x for x in claims if x["role"] == "check"]
        if checks:
            parts.append(self.ts("claims.check", agree=sum(1 for x in checks if x["reproduced"]), total=len(checks)))
        return self.ts("list_sep").join(parts)

    def _preset(self) -> str:
        return str(COLUMNS[self.query_one(Slider).value])

    def action_run(self) -> None:
        self.post_message(self.RunPreset(self._preset()))

    def action_real(self) -> None:
        self.post_message(self.RunPreset(self._preset(), real=True))



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    out: Checks = [("selected", n["selected"], slider_values(s)["column"])]
    for column, preset_id in zip(n["columns"], COLUMNS, strict=True):
        preset, tau = preset_tau(preset_id)
        out.append((preset_id, column["speedup"], near(tau / (preset.gamma * preset.c + 1))))  # Theorem 3.8
    return out


CHECKS = LessonChecks(
    _independent, lambda s, n: [(grid_text(s), f"{c['speedup']:.2f}×") for c in n["columns"]],
    # qwen3.6-mtp: a = .83 at each of 3 positions, τ = 1 + .83 + .83² + .83³ = 3.0907, c .135: 3.0907 ÷ 1.405
    lambda n: [("qwen", n["columns"][0]["speedup"], near(2.19978, 1e-5))])


def _preset_numbers(lang: str, preset_id: str) -> dict[str, Any]:
    """The screen with the preset's column chosen (`learn 9 --json --preset ID`); CliError for another preset."""
    if preset_id not in COLUMNS:
        raise CliError("learnerr.preset_not_on_screen", number=9, known=", ".join(COLUMNS),
                       preset=sanitize(preset_id, 60, one_line=True))
    return case_numbers(COLUMNS.index(preset_id))


LESSON = Lesson(9, "cases", CasesScreen, lambda lang: case_numbers(), checks=CHECKS, preset_numbers=_preset_numbers)
