"""3 · The causal mask: a verify forward over the cached context + pending token + drafts; ↑/↓ picks a row."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    shown,
)
from specview.features.learn.example_round import example_round, split_context
from specview.features.learn.explain.mask import mask_numbers
from specview.features.learn.explain.rounds import label, round_drafts
from specview.features.learn.registry import Lesson
from specview.widgets.grid import Cell, Grid
from specview.widgets.prose import Prose


def round_labels(run_before: tuple[str, ...], rnd: Any) -> tuple[list[str], str, list[str]]:
    """Context labels, the pending token and the draft labels of a round."""
    context, pending = split_context(run_before)
    return context, pending, [d.text for d in round_drafts(rnd)]


class MaskScreen(LearnScreen):
    """The attention mask of one round (the live run's last, or the example round)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.run is not None and self.run.last_round is not None:
            self.live = True
            before = tuple(label(t) for t in self.run.before_round)
            self.context, self.pending, self.drafts = round_labels(before, self.run.last_round)
        else:
            self.live = False
            before, rnd = example_round(self.lang)
            self.context, self.pending, self.drafts = round_labels(before, rnd)
        self.row = len(self.context)  # the pending row: it scores the first draft

    def body(self) -> ComposeResult:
        said = self.ts("live", origin=self.origin()) if self.live else self.ts("example")
        yield Prose(said, classes="learn-legend")
        # a cell as wide as the longest token and a space; narrower, the headers drop their "␣"
        width = max([8] + [cell_len(t) + 1 for t in (*self.context, self.pending, *self.drafts)])
        yield Grid(cell_width=width, selectable=True, short_header=True, id="mask")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Static(id="numbers", classes="learn-numbers")
        yield Prose(self.ts("note"), classes="learn-note")

    def numbers(self) -> dict[str, Any]:
        return mask_numbers(self.context, self.pending, self.drafts, self.row)

    def _row_label(self, i: int, cached: int) -> str:
        if i < cached:
            return self.ts("cached_row")
        if i == cached:
            return self.ts("pending_row")
        return f"d{i - cached}"

    def refresh_numbers(self) -> None:
        n = self.numbers()
        labels, cached = n["labels"], n["cached"]
        rows = [f"{self._row_label(i, cached)} {labels[i]}" for i in range(len(labels))]
        cells = []
        for i, mask_row in enumerate(n["mask"]):
            row = []
            for k, on in enumerate(mask_row):
                if k == n["scored_column"] and i == n["selected"]:
                    row.append(Cell("✕", "bad"))
                elif on:
                    row.append(Cell("●", "muted" if i < cached else "on"))
                else:
                    row.append(Cell("·", "off"))
            cells.append(row)
        emphasise = [(n["selected"], k) for k, on in enumerate(n["mask"][n["selected"]]) if on]
        self.query_one(Grid).set(rows, labels, cells, selected=n["selected"], emphasise=emphasise)
        self.query_one("#numbers", Static).update(self._explain(n))

    def _explain(self, n: dict[str, Any]) -> Text:
        row = n["selected"]
        who = n["labels"][row]
        seen = " ".join(n["selected_attends"])
        out = Text()
        out.append(self.ts("row_sees", row=self._row_label(row, n["cached"]), token=who, seen=seen))
        scored = n["selected_scores"]
        out.append("\n")
        if scored is None:
            out.append(self.ts("cached_explain"), style="dim")
        elif scored > n["drafts"]:
            out.append(self.ts("scores_bonus"))
        else:
            draft = n["labels"][n["scored_column"]]
            prev = self._row_label(n["cached"] + scored - 1, n["cached"])  # the row as the grid labels it
            out.append(self.ts("scores_draft", j=scored, draft=draft, prev=prev))
            out.append("\n" + self.ts("never_sees", j=scored, draft=draft), style="bold")
        return out

    def on_grid_row_selected(self, event: Grid.RowSelected) -> None:
        event.stop()
        self.row = event.row
        self.refresh_numbers()


def default_numbers(lang: str) -> dict[str, Any]:
    """The screen's numbers for the example round (what `specview learn 3 --json` prints)."""
    before, rnd = example_round(lang)
    context, pending = split_context(before)
    return mask_numbers(context, pending, [d.text for d in round_drafts(rnd)])



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    labels, cached = [*s.context, s.pending, *s.drafts], len(s.context)
    return [("mask", n["mask"], [[int(k <= i) for k in range(len(labels))] for i in range(len(labels))]),
            ("attends", n["selected_attends"], labels[: s.row + 1]),  # causal: itself and everything before
            # the pending row scores draft 1, draft j's row draft j + 1, the last row the bonus
            ("scores", n["selected_scores"], s.row - cached + 1 if s.row >= cached else None),
            ("scored_is_masked", n["scored_is_masked"], True)]  # a row never sees the draft it scores


CHECKS = LessonChecks(_independent, lambda s, n: [(shown(s, "numbers"), " ".join(n["selected_attends"]))],
                      keys=("up", "up"), before_keys=lambda s: s.query_one(Grid).focus())


LESSON = Lesson(3, "mask", MaskScreen, default_numbers, checks=CHECKS)
