"""One instance of the fleet up close, from its readings: what `enter` opens where there is no server
of ours to watch (a Prometheus instance), and every column a narrow terminal left out.

The gauges are the gauge table's WATCH view over the fleet's window, the per-position acceptance
of that window, α over the retention, and what the source said about the instance: its state and
since when, its alerts, the series it lacks, why it is down. The fleet screen feeds it each
snapshot's row while it is open; `esc` goes back.
"""

from __future__ import annotations

from contextlib import suppress

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from specview.boundary.text import number, sanitize
from specview.features.doctor.from_readings import from_row
from specview.features.doctor.screen import DoctorScreen
from specview.features.live.run_text import note_texts
from specview.features.watch.model.cadence import cadence_phrase
from specview.features.watch.model.fleet import InstanceRow, said_in
from specview.features.watch.model.position_reading import CONDITIONAL, position_reading
from specview.features.watch.screen.fleet_cells import FIELD_CHARS, alert_line, engine_text, marks, state_text
from specview.features.watch.screen.load_text import load_lines
from specview.features.watch.screen.reading_text import reading_heading
from specview.kernel.gauges import WATCH, gauges, position_texts
from specview.texts.catalog import fill, text
from specview.tui.gauges import watch_texts
from specview.widgets.bindings import bind, key_hint, localize
from specview.widgets.chart_scale import RATE
from specview.widgets.history_chart import HistoryChart
from specview.widgets.position_bars import PositionBars
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.status_line import StatusLine

MAX_MISSING = 20  # series named as missing (the rest counted)


class InstanceScreen(Screen[None]):
    """The gauges, per-position bars and α history of one fleet row."""

    DEFAULT_CSS = """
    #instance-body { height: 1fr; }
    #instance-now, #instance-more { width: 1fr; padding: 0 1; border: round $panel; }
    .instance-heading { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [bind("escape", "back", "fleetscreen.back"), bind("d", "doctor", "fleetscreen.doctor")]

    def __init__(self, row: InstanceRow, window_s: float, lang: str = "en") -> None:
        super().__init__()
        localize(self, lang)
        self.instance, self.key, self.lang = row.instance, row.key, lang
        self.row, self.window_s = row, window_s
        self._ready = False  # composed and mounted: until then a new row is only kept
        self._reading = CONDITIONAL  # the per-position bars' reading (model/position_reading.py)

    def compose(self) -> ComposeResult:
        t = self.lang
        yield StatusLine(id="status")
        with Horizontal(id="instance-body"):
            with VerticalScroll(id="instance-now"):
                yield Static("", id="instance-window", classes="instance-heading", markup=False)
                for spec in gauges(WATCH):
                    yield StatGauge(text(spec.label_id, t), show_bar=spec.bar, id=f"g-{spec.key}")
                yield Label(text("watch.by_position", t), classes="instance-heading", id="by-position")
                yield PositionBars(text("bars.empty", t), id="g-positions")
            with Vertical(id="instance-more"):
                yield Label(text("gauge.alpha.label", t), classes="instance-heading")
                yield HistoryChart(RATE, rate=True, id="h-alpha")
                yield Static("", id="instance-facts", markup=False)
                yield Static("", id="instance-load", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self._ready = True
        self.query_one(StatusLine).set(hint=key_hint(self.app, "app.help"))
        self.update(self.row, self.window_s)

    def update(self, row: InstanceRow | None, window_s: float) -> None:
        """Show the row of the latest snapshot (None: the instance left the fleet; the last one stays)."""
        if row is None:
            return
        self.row, self.window_s = row, window_s
        if self._ready:
            with suppress(NoMatches):  # a screen being taken down (the app quitting) has nothing to update
                self._draw(row, window_s)

    def _draw(self, row: InstanceRow, window_s: float) -> None:
        t = self.lang
        title = f"{sanitize(row.instance, FIELD_CHARS, one_line=True)} · {engine_text(row)}"
        self.query_one(StatusLine).set(what=title, state=state_text(row, t))
        self.query_one("#instance-window", Static).update(fill("fleetscreen.window", t, seconds=number(window_s, "g")))
        for gauge in watch_texts(row.window, t):
            self.query_one(f"#g-{gauge.key}", StatGauge).set(gauge.value, gauge.fraction, gauge.note)
        # marginal where drafts vary in length, said in the heading (kept through idle windows)
        self._reading, values = position_reading(row.window, self._reading)
        self.query_one("#by-position", Label).update(reading_heading(self._reading, t))
        self.query_one(PositionBars).set(position_texts(values))
        self.query_one("#h-alpha", HistoryChart).show(row.alpha_history)  # a window without α: a gap
        self.query_one("#instance-facts", Static).update(Text("\n".join(self.facts(row))))
        if row.by_load is not None:  # α, yield, τ, tokens/s per running requests
            self.query_one("#instance-load", Static).update(Text("\n".join(load_lines(row.by_load, t))))

    def facts(self, row: InstanceRow) -> list[str]:
        """γ, yield, the marks, alerts, missing series, the error and what its samples said, in words."""
        t = self.lang
        window = row.window
        lines = [fill("fleetscreen.facts", t, gamma=number(row.gamma, "d"),
                      yield_=number(window.draft_yield if window else None, ".3f"), marks=marks(row).strip() or "—")]
        if row.outlier:
            lines.append(text("fleetscreen.outlier", t))
        cadence = cadence_phrase(window.cadence if window else None)
        if cadence is not None:
            lines.append(cadence.render(t))
        lines += [alert_line(a, t) for a in row.alerts]
        if row.missing:
            names = ", ".join(sanitize(m, 120, one_line=True) for m in row.missing[:MAX_MISSING])
            more = len(row.missing) - MAX_MISSING
            lines.append(fill("fleetscreen.missing", t, names=names + (f" (+{more})" if more > 0 else "")))
        if row.error:
            lines.append(fill("fleetscreen.error", t, error=sanitize(said_in(row.error, t) or "", 300, one_line=True)))
        return lines + note_texts(row.notes, t)

    def action_doctor(self) -> None:
        """Doctor's findings from the latest row (the fleet keeps feeding this screen while they show)."""
        self.app.push_screen(DoctorScreen(lambda: from_row(self.row, self.window_s), "fleet", self.lang))

    def action_back(self) -> None:
        self.dismiss()
