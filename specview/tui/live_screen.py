"""The live screen: the stream, its gauges, and one pump that feeds them."""

from __future__ import annotations

import os

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from specview.backends.factory import make_backend
from specview.backends.process import offload
from specview.core.backend import Backend
from specview.core.bounds import MAX_SHOWN
from specview.core.errors import SpecviewError
from specview.core.runspec import RunSpec
from specview.core.session import Session
from specview.core.text import sanitize
from specview.texts.catalog import text
from specview.tui.gauges import gauge_texts
from specview.tui.notify import notify_safe
from specview.widgets.history_chart import HistoryChart
from specview.widgets.position_bars import PositionBars
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.status_line import StatusLine
from specview.widgets.token_info import TokenInfo
from specview.widgets.token_view import TokenView

PUMP_HZ = 20 if os.environ.get("SSH_CONNECTION") else 30
# Tokens the producer may run ahead of the screen. Every pump tick drains the whole buffer,
# so the view is at most one frame behind; the bound holds back a producer that outruns the
# terminal (back-pressure instead of unbounded memory) and so caps the work of one frame.
UI_BUFFER_TOKENS = 2048
NARROW = 80


class LiveScreen(Screen[None]):
    """Streams one Session; every widget is updated in one batch per pump tick."""

    BINDINGS = [
        Binding("space", "toggle_pause", "pause", id="live.pause", tooltip="Pause or resume the run"),
        Binding("n", "step", "step", id="live.step", tooltip="While paused, run one more round"),
        Binding("r", "restart", "restart", id="live.restart", tooltip="Start again with the same seed"),
        Binding("p", "choose_preset", "preset", id="live.preset", tooltip="Choose a simulator preset"),
        Binding("x", "run_for_real", "run it for real", id="live.real",
                tooltip="llama-server / vLLM / SGLang commands for this preset"),
        Binding("plus,equals_sign", "speed(2.0)", "faster", show=False, id="live.faster"),
        Binding("minus", "speed(0.5)", "slower", show=False, id="live.slower"),
    ]

    def __init__(self, spec: RunSpec, backend: Backend, lang: str = "en", record: str | None = None) -> None:
        super().__init__()
        self.spec = spec
        self.backend = backend
        self.lang = lang
        self.record = record
        self.session = self._new_session(backend)
        self.drawn_rounds = 0
        self._error_shown = False
        self._finished_shown = False
        self._gamma_now: int | None = None
        self._ticks = 0

    def compose(self) -> ComposeResult:
        t = self.lang
        yield StatusLine(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                view = TokenView(id="stream")
                view.border_title = text("stream", t)
                view.border_subtitle = text("legend", t)
                yield view
                yield TokenInfo(text("hint", t), id="info")
            with Vertical(id="side") as side:
                side.border_title = text("this_run", t)
                yield StatGauge(text("alpha", t), show_bar=True, id="g-alpha")
                yield StatGauge(text("tau", t), id="g-tau")
                yield StatGauge(text("tps", t), id="g-tps")
                yield StatGauge(text("cost", t), id="g-cost")
                yield StatGauge(text("speedup", t), id="g-speedup")
                yield Label(text("by_position", t), classes="section")
                yield PositionBars(id="bars")
                yield Label(text("over_time", t), classes="section")
                yield HistoryChart([], id="history")
                yield Static("", id="note", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        # The pump touches these every tick: look them up once.
        self._view = self.query_one(TokenView)
        self._gauges = {g.id.removeprefix("g-"): g for g in self.query(StatGauge) if g.id}
        self._bars = self.query_one(PositionBars)
        self._history = self.query_one(HistoryChart)
        self._status = self.query_one(StatusLine)
        self._view.focus()
        self._describe()
        self.session.start()
        self.set_interval(1 / PUMP_HZ, self.pump, name="pump")

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")

    def on_unmount(self) -> None:
        self.session.stop()

    # the pump --------------------------------------------------------------
    def pump(self) -> None:
        """Drain the session once and update every widget in one batch."""
        drained = self.session.drain()
        self._ticks += 1
        if drained.rounds and drained.rounds[-1].drafted != self._gamma_now:
            self._gamma_now = drained.rounds[-1].drafted
            self._describe()
        if drained.rounds or drained.reconciled:
            replace, tokens = self.session.drawable(drained)
            with self.app.batch_update():
                if replace:  # exact rounds replaced the inferred ones
                    self._view.clear()
                self._view.append(tokens)
                self._update_gauges(charts=self._ticks % 4 == 0 or replace)
            self.drawn_rounds += len(drained.rounds)
        if drained.error and not self._error_shown:
            self._error_shown = True
            notify_safe(self, drained.error, title=text("error.run_stopped", self.lang), severity="error", timeout=30)
            reason = sanitize(drained.error, 48, one_line=True)
            self._status.set(state=text("error.stopped_because", self.lang).format(reason=reason))
        elif drained.finished and not self._finished_shown and not drained.error:
            self._finished_shown = True
            self._update_gauges(charts=True)
            self._set_state("finished")

    def _update_gauges(self, charts: bool) -> None:
        snap = self.session.metrics.snapshot()
        texts = gauge_texts(snap, self.backend.info, self.lang)
        for key, gauge in texts.items():
            self._gauges[key].set(gauge.value, gauge.fraction, gauge.note)
        self._bars.set(snap.per_position_acceptance)
        if charts:
            self._history.show(snap.tau_history)
        compact = f"α {texts['alpha'].value} · τ {texts['tau'].value} · {texts['tps'].value} tok/s"
        self._status.set(extra=compact if self.has_class("-narrow") else "")

    def _describe(self) -> None:
        info = self.backend.info
        parts = [info.backend, info.label]
        if info.gamma is not None:
            now = self._gamma_now
            # adaptive drafting: show the γ of the latest round next to the configured one
            parts.append(f"γ {info.gamma}" if now in (None, info.gamma) else f"γ {info.gamma} → {now}")
        parts.append(f"T {info.temperature:g}")
        if info.seed is not None:
            parts.append(f"seed {info.seed}")
        if info.pace is not None:
            speed = info.pace.speed
            parts.append(f"{speed:g}×" if speed > 0 else "max speed")
        self._status.set(what=" · ".join(parts))
        self.query_one("#note", Static).update(Text(sanitize(info.note, MAX_SHOWN)))
        self._set_state("paused" if self.session.paused else "running")

    def _set_state(self, key: str) -> None:
        self._status.set(state=text(key, self.lang))

    # actions ---------------------------------------------------------------
    def action_toggle_pause(self) -> None:
        if self.session.paused:
            self.session.resume()
            self._set_state("running")
        else:
            self.session.pause()
            self._set_state("paused")

    def action_step(self) -> None:
        if not self.session.paused:
            self.session.pause()
            self._set_state("paused")
        self.session.step()

    def action_restart(self) -> None:
        self._start(self.backend)

    def action_speed(self, factor: float) -> None:
        pace = self.backend.info.pace
        if pace is not None:
            pace.scale(factor)
            self._describe()

    def action_choose_preset(self) -> None:
        from specview.core.presets import load_presets
        from specview.tui.preset_screen import PresetScreen

        problems: list[str] = []
        presets = load_presets(problems=problems)
        for problem in problems:
            notify_safe(self, problem, title=text("error.presets_skipped", self.lang), severity="warning")
        self.app.push_screen(PresetScreen(presets, self.backend.info.preset), self._switch_preset)

    def action_run_for_real(self) -> None:
        from specview.tui.real_run_screen import show_real_run

        show_real_run(self, self.backend.info.preset)

    def _switch_preset(self, preset_id: str | None) -> None:
        if preset_id is None:
            return
        spec = self.spec.with_preset(preset_id)
        if spec.kind != "sim":
            spec = RunSpec(preset=preset_id, seed=self.spec.seed, lang=self.spec.lang, speed=self.spec.speed)
        try:
            backend = make_backend(spec)
        except SpecviewError as exc:
            notify_safe(self, str(exc), severity="error")
            return
        self.spec = spec
        self._start(backend)

    def _start(self, backend: Backend) -> None:
        """Stop the current run and start `backend` from the beginning."""
        was_paused = self.session.paused
        self.session.stop(close=backend is not self.backend)
        self.backend = backend
        self.session = self._new_session(backend)
        if was_paused:
            self.session.pause()
        self.drawn_rounds = 0
        self._error_shown = False
        self._finished_shown = False
        self._gamma_now = None
        with self.app.batch_update():
            self._view.clear()
            self.query_one(TokenInfo).show(None)
            self._update_gauges(charts=True)
        self._describe()
        self.session.start()

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
        self.query_one(TokenInfo).show(event.token)
