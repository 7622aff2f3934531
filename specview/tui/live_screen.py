"""The live screen: the stream, its gauges, and one pump that feeds them."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from specview.backends.factory import make_backend
from specview.backends.process import offload
from specview.core.backend import Backend
from specview.core.errors import SpecviewError
from specview.core.events import TokenStatus
from specview.core.gauges import PANEL, gauges
from specview.core.runspec import RunSpec
from specview.core.session import Session
from specview.texts.catalog import fill, text
from specview.tui.gauges import legend_entries, pane_texts, panel_texts, position_texts, rises
from specview.tui.inspector import describe
from specview.tui.notify import notify_error, user_action
from specview.tui.pump import Pump, Pumps, Throttle
from specview.tui.run_text import notes_text, run_title
from specview.widgets.bindings import bind, key_hint, localize
from specview.widgets.history_chart import HistoryChart
from specview.widgets.legend import Legend
from specview.widgets.position_bars import PositionBars
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.status_line import StatusLine
from specview.widgets.token_info import TokenInfo
from specview.widgets.token_view import TokenView

# Tokens the producer may run ahead of the screen. Every pump tick drains the whole buffer,
# so the view is at most one frame behind; the bound holds back a producer that outruns the
# terminal (back-pressure instead of unbounded memory) and so caps the work of one frame.
UI_BUFFER_TOKENS = 2048
NARROW = 80


class LiveScreen(Screen[None]):
    """Streams one Session through one Pump; numbers are redrawn by the throttle."""

    BINDINGS = [
        bind("space", "toggle_pause", "live.pause"),
        bind("n", "step", "live.step"),
        bind("r", "restart", "live.restart"),
        bind("p", "choose_preset", "live.preset"),
        bind("x", "run_for_real", "live.real"),
        bind("plus,equals_sign", "speed(2.0)", "live.faster", show=False),
        bind("minus", "speed(0.5)", "live.slower", show=False),
        bind("d", "toggle_discarded", "live.discarded", show=False),
        bind("b", "toggle_rounds", "live.rounds", show=False),
        bind("v", "toggle_two_phase", "live.verdicts", show=False),
    ]

    def __init__(self, spec: RunSpec, backend: Backend, lang: str = "en", record: str | None = None,
                 throttle: Throttle | None = None) -> None:
        super().__init__()
        localize(self, lang)
        self.spec = spec
        self.backend = backend
        self.lang = lang
        self.record = record
        self.throttle = throttle or Throttle.default()
        self._view = TokenView(id="stream")
        localize(self._view, lang)
        self.pump = Pump(self._new_session(backend), self._view, on_error=self._run_failed,
                         title=text("notice.run_stopped", lang))
        self._gamma_shown: int | None = None
        self._rising_shown = False

    @property
    def session(self) -> Session:
        return self.pump.session

    @property
    def drawn_rounds(self) -> int:
        return self.pump.drawn_rounds

    def compose(self) -> ComposeResult:
        t = self.lang
        yield StatusLine(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                self._view.border_title = text("stream", t)
                yield self._view
                yield Legend(legend_entries(t), id="legend")
                yield TokenInfo(text("hint", t), id="info")
            with Vertical(id="side") as side:
                # which span each number covers: the window, or the whole run where a label says (run)
                side.border_title = Text(fill("span", t, n=self.session.metrics.window_size))
                for spec in gauges(PANEL):
                    yield StatGauge(text(spec.label_id, t), show_bar=spec.bar, id=f"g-{spec.key}")
                yield Label(text("yield_line", t), classes="span")
                yield Label(text("by_position", t), classes="section", id="by-position")
                yield PositionBars(text("bars.empty", t), id="bars")
                yield Label("", id="rising", classes="span")
                yield Label(text("over_time", t), classes="section")
                yield HistoryChart([], id="history")
                yield Static("", id="note", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        # The numbers are redrawn several times a second: look the widgets up once.
        self._gauges = {g.id.removeprefix("g-"): g for g in self.query(StatGauge) if g.id}
        self._bars = self.query_one(PositionBars)
        self._history = self.query_one(HistoryChart)
        self._status = self.query_one(StatusLine)
        self._status.set(hint=key_hint(self.app, "app.help"))
        self._view.focus()
        self._describe()
        self.pumps = Pumps([self.pump], self.throttle, self._draw_numbers)
        self.pumps.start(self)

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")

    def on_unmount(self) -> None:
        self.pump.stop()

    # the numbers -------------------------------------------------------------
    def _draw_numbers(self, pumps: Sequence[Pump]) -> None:
        reading = self.pump.reading()
        for gauge in panel_texts(reading, self.lang):
            self._gauges[gauge.key].set(gauge.value, gauge.fraction, gauge.note)
        positions = reading.snap.per_position_acceptance
        self._bars.set(position_texts(positions))
        rising = rises(positions, reading.snap.per_position_verified)
        if rising != self._rising_shown:
            self._rising_shown = rising
            self.query_one("#rising", Label).update(text("rising", self.lang) if rising else "")
        self._history.show(reading.snap.tau_history)
        compact = " · ".join(f"{label} {value}" for label, value in pane_texts(reading, self.lang))
        self._status.set(extra=compact if self.has_class("-narrow") else "", state=self.pump.state.text(self.lang))
        if self.pump.gamma_now != self._gamma_shown:
            self._describe()

    def _run_failed(self, message: str, title: str) -> None:
        notify_error(self, message, title)

    def _describe(self) -> None:
        """The status line's description of the run, and the backend's notes."""
        self._gamma_shown = self.pump.gamma_now
        self._status.set(what=run_title(self.backend.info, self.lang, self._gamma_shown),
                         state=self.pump.state.text(self.lang))
        self.query_one("#note", Static).update(Text(notes_text(self.backend.info, self.lang)))

    # actions ---------------------------------------------------------------
    def action_toggle_pause(self) -> None:
        if self.pump.paused:
            self.pump.resume()
        else:
            self.pump.pause()
        self.pumps.flush_numbers()

    def action_step(self) -> None:
        self.pump.step()
        self.pumps.flush_numbers()

    def action_toggle_discarded(self) -> None:
        """Show or hide the drafts after a rejection (they keep their places: a selection holds)."""
        hidden = self._view.hidden ^ {TokenStatus.DISCARDED}
        self._view.set_display(hidden=hidden)
        shown = TokenStatus.DISCARDED not in hidden
        self.notify(text("toggle.discarded_shown" if shown else "toggle.discarded_hidden", self.lang), markup=False)

    def action_toggle_rounds(self) -> None:
        """Show or hide a thin bar where each round begins."""
        self._view.set_display(separators=not self._view.separators)
        key = "toggle.rounds_shown" if self._view.separators else "toggle.rounds_hidden"
        self.notify(text(key, self.lang), markup=False)

    def action_toggle_two_phase(self) -> None:
        """Step mode in two phases (a round's drafts undecided, then its verdicts) or one."""
        self.pump.two_phase = not self.pump.two_phase
        key = "toggle.two_phase_on" if self.pump.two_phase else "toggle.two_phase_off"
        self.notify(text(key, self.lang), markup=False)

    def action_restart(self) -> None:
        with user_action(self):
            self._start(self.backend)

    def action_speed(self, factor: float) -> None:
        pace = self.backend.info.pace
        if pace is not None:
            pace.scale(factor)
            self._describe()

    def action_choose_preset(self) -> None:
        from specview.tui.preset_screen import choose_preset

        choose_preset(self, self.backend.info.preset, self.lang, self._switch_preset)

    def action_run_for_real(self) -> None:
        from specview.tui.real_run_screen import show_real_run

        show_real_run(self, self.backend.info.preset, self.lang)

    def _switch_preset(self, preset_id: str | None) -> None:
        if preset_id is None:
            return
        spec = self.spec.with_preset(preset_id)
        if spec.kind != "sim":
            spec = RunSpec(preset=preset_id, seed=self.spec.seed, lang=self.spec.lang, speed=self.spec.speed)
        with user_action(self):
            backend = make_backend(spec)
            self.spec = spec
            self._start(backend)

    def _start(self, backend: Backend) -> None:
        """Stop the current run and start `backend` from the beginning."""
        reuse = backend is self.backend
        self.backend = backend
        with self.app.batch_update():
            self.query_one(TokenInfo).show(None)
            try:
                self.pump.restart(lambda: self._new_session(backend), close=not reuse)
            finally:
                self._describe()
                self.pumps.flush_numbers(force=True)

    def _new_session(self, backend: Backend) -> Session:
        session = Session(offload(backend), buffer_tokens=UI_BUFFER_TOKENS)
        if self.record:
            from specview.core.recorder import start_recording

            try:
                start_recording(session, self.record, self.spec)
            except SpecviewError as exc:  # e.g. --record /dev/full: the run stops, and says why
                session.fail(str(exc))
        return session

    @on(TokenView.Selected)
    def _show_token(self, event: TokenView.Selected) -> None:
        token = event.token
        greedy = self.backend.info.temperature <= 0
        self.query_one(TokenInfo).show(None if token is None else describe(token, self.lang, greedy=greedy))
