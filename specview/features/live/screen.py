"""The live screen: the stream, its gauges, and one pump that feeds them."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.widgets import Label, Static

from specview.backends.factory import make_backend
from specview.backends.process import offload
from specview.features.learn.explain.context import RunContext
from specview.features.live.inspector import describe
from specview.features.live.learn_run import run_context
from specview.features.live.run_text import notes_text, run_title
from specview.features.live.token_link import TokenRequest, token_request
from specview.kernel.backend import Backend, BackendInfo, BackendKind
from specview.kernel.errors import SpecviewError
from specview.kernel.events import TokenStatus
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.gauges import PANEL, STRIP, gauges, position_texts
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.kernel.totals import CrossChecked
from specview.report.sentences import choice_text
from specview.texts.catalog import Phrase, fill, text
from specview.tui.context_texts import context_texts
from specview.tui.depth_texts import drafter_lines
from specview.tui.gauges import legend_entries, origin_text, pane_texts, panel_texts, rises
from specview.tui.notify import notify_error, user_action
from specview.tui.pump import Pump, Pumps, Throttle
from specview.tui.pumped_screen import PumpedScreen
from specview.widgets.bindings import bind, key_hint, localize
from specview.widgets.context_chart import ContextChart
from specview.widgets.gauge_strip import GaugeStrip
from specview.widgets.history_chart import HistoryChart
from specview.widgets.legend import Legend
from specview.widgets.position_bars import PositionBars
from specview.widgets.settled import SettledFooter
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.status_line import StatusLine
from specview.widgets.token_info import TokenInfo
from specview.widgets.token_view import TokenView

# Tokens the producer may run ahead of the screen. Every pump tick drains the whole buffer,
# so the view is at most one frame behind; the bound holds back a producer that outruns the
# terminal (back-pressure instead of unbounded memory) and so caps the work of one frame.
UI_BUFFER_TOKENS = 2048
CHARTS_HZ = 1.0  # per-position bars and the τ history: slow-moving shapes
SIDE_PANEL_MIN = 100  # columns: narrower, the side panel becomes the one-line gauge strip
MIN_SIZE = (60, 16)  # columns, rows: smaller, the screen says it is too small (the legend needs ~50)
# Rounds kept for `e` (export): about as many tokens as the token view holds (tens of MB at most).
KEEP_ROUNDS = 20_000
# The Learn screens t and i open, by the slug each declares (numbers move when a screen is added)
SPEEDUP_LESSON = "speedup"
TOKEN_LESSON = "lossless"


class LiveScreen(PumpedScreen):
    """Streams one Session through one Pump; numbers are redrawn by the throttle."""

    BINDINGS = [
        bind("space", "toggle_pause", "live.pause"),
        bind("n", "step", "live.step"),
        bind("r", "restart", "live.restart"),
        bind("p", "choose_preset", "live.preset"),
        bind("x", "run_for_real", "live.real"),
        bind("c", "copy", "live.copy"),
        bind("e", "export", "live.export"),
        bind("i", "learn_token", "live.learn_token", show=False),
        bind("t", "learn_speedup", "live.learn_speedup", show=False),
        bind("plus,equals_sign", "speed(2.0)", "live.faster", show=False),
        bind("minus", "speed(0.5)", "live.slower", show=False),
        bind("d", "toggle_discarded", "live.discarded", show=False),
        bind("b", "toggle_rounds", "live.rounds", show=False),
        bind("v", "toggle_two_phase", "live.verdicts", show=False),
    ]

    def __init__(self, spec: RunSpec, backend: Backend, lang: str = "en", record: str | None = None,
                 throttle: Throttle | None = None, export_dir: str | None = None) -> None:
        super().__init__()
        localize(self, lang)
        self.spec = spec
        self.backend = backend
        self.lang = lang
        self.record = record
        self.export_dir = export_dir
        self._charts_at = float("-inf")
        self.throttle = throttle or Throttle.default()
        self._view = TokenView(id="stream")
        localize(self._view, lang)
        self.pump = Pump(self._new_session(backend), self._view, on_error=self._run_failed,
                         title=text("notice.run_stopped", lang))
        self._gamma_shown: int | None = None
        self._info_shown: BackendInfo | None = None
        self._check_shown: CrossChecked | None = None
        self._choice_shown: GammaChoice | None = None  # `--gamma auto`'s last decision, as the note says it
        self._rising_shown = False
        self._tree_legend = False  # the legend names a tree's lost branches (once the run has some)

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
                self._view.border_title = text("live.stream", t)
                yield self._view
                yield Legend(legend_entries(t), id="legend")
                yield TokenInfo(text("live.hint", t), id="info")
            with Vertical(id="side") as side:
                # which span each number covers: the window, or the whole run where a label says (run)
                side.border_title = Text(fill("live.span", t, n=self.session.metrics.window_size))
                for spec in gauges(PANEL):
                    gauge = StatGauge(text(spec.label_id, t), show_bar=spec.bar, id=f"g-{spec.key}")
                    gauge.display = not spec.optional  # an optional row shows once it has a value
                    yield gauge
                yield Label(text("live.yield_line", t), classes="span")
                yield Label(text("live.by_position", t), classes="section", id="by-position")
                yield PositionBars(text("bars.empty", t), id="bars")
                yield Label("", id="rising", classes="span")
                yield Label("", id="drafters", classes="span")
                yield Label(text("live.over_time", t), classes="section")
                yield HistoryChart(id="history")
                yield Label(text("depth.title", t), classes="section")
                yield HistoryChart(id="gammas")
                yield Label(text("context.title", t), classes="section")
                yield ContextChart(text("context.empty", t), id="context")
                yield Static("", id="note", markup=False)
        yield GaugeStrip(id="strip")
        yield Static(text("term.too_small", t), id="too-small", markup=False)
        yield SettledFooter()

    def on_mount(self) -> None:
        # The numbers are redrawn several times a second: look the widgets up once.
        self._gauges = {g.id.removeprefix("g-"): g for g in self.query(StatGauge) if g.id}
        self._bars = self.query_one(PositionBars)
        self._history = self.query_one("#history", HistoryChart)
        self._gammas = self.query_one("#gammas", HistoryChart)
        self._context_chart = self.query_one(ContextChart)
        self._status = self.query_one(StatusLine)
        self._strip = self.query_one(GaugeStrip)
        self._status.set(hint=key_hint(self.app, "app.help"))
        self._view.focus()
        self._describe()
        self.pumps = Pumps([self.pump], self.throttle, self._draw_numbers)
        self.pumps.start(self)

    def on_resize(self, event: Resize) -> None:
        width, height = event.size
        # below SIDE_PANEL_MIN columns the side panel folds into the gauge strip; below the minimum
        # size a message says so (the run goes on, and the view comes back when the terminal grows)
        self.set_class(width < SIDE_PANEL_MIN, "-narrow")
        self.set_class(width < MIN_SIZE[0] or height < MIN_SIZE[1], "-too-small")
        if hasattr(self, "pumps"):  # the strip or the panel now shows the numbers: draw them at once
            self.pump.stale = True
            self.pumps.flush_numbers(force=True)

    def on_unmount(self) -> None:
        self.pump.stop()

    # the numbers -------------------------------------------------------------
    def _draw_numbers(self, pumps: Sequence[Pump]) -> None:
        reading = self.pump.reading()
        if bool(reading.snap.tree_nodes) != self._tree_legend:  # a tree run: its marks differ
            self._tree_legend = not self._tree_legend
            self.query_one(Legend).set_entries(legend_entries(self.lang, tree=self._tree_legend))
        if self.has_class("-narrow"):  # the side panel is folded into the strip: its first bar only
            fraction = next((v for spec in gauges(PANEL) if spec.bar
                             and (v := spec.value(reading, windowed=True)) is not None), None)
            self._strip.set(pane_texts(reading, self.lang, STRIP), fraction, origin_text(reading, self.lang))
        else:
            for gauge in panel_texts(reading, self.lang):
                widget = self._gauges[gauge.key]
                widget.set(gauge.value, gauge.fraction, gauge.note)
                if widget.display != gauge.present:
                    widget.display = gauge.present
            # slow-moving shapes: once a second, and whenever the run stops moving
            now = time.monotonic()
            if now - self._charts_at >= 1 / CHARTS_HZ or self.pump.state.kind != "running":
                self._charts_at = now
                positions = reading.snap.per_position_acceptance
                self._bars.set(position_texts(positions, reading.snap.per_position_verified))
                rising = rises(positions, reading.snap.per_position_verified)
                if rising != self._rising_shown:
                    self._rising_shown = rising
                    self.query_one("#rising", Label).update(text("live.rising", self.lang) if rising else "")
                self._history.show(reading.snap.tau_history)
                self._gammas.show([float(g) for g in reading.snap.gamma_history])
                self.query_one("#drafters", Label).update(Text(drafter_lines(reading.snap, self.lang)))
                ctx = context_texts(reading, self.lang)
                self._context_chart.set(ctx.values, ctx.caption, ctx.mark, ctx.decayed)
        self._status.set(state=self.pump.state.text(self.lang))
        # adaptive γ, or what the backend learned while running (e.g. a server's method, a cross-check)
        if (self.pump.gamma_now != self._gamma_shown or self.backend.info is not self._info_shown
                or reading.snap.cross_check is not self._check_shown
                or reading.snap.gamma_choice is not self._choice_shown):
            self._describe()

    def _run_failed(self, message: Phrase | str, title: str) -> None:
        notify_error(self, message, title)

    def _describe(self) -> None:
        """The status line's description of the run, and the backend's notes."""
        self._gamma_shown = self.pump.gamma_now
        self._info_shown = self.backend.info
        self._check_shown = self.session.metrics.cross_check
        self._status.set(what=run_title(self.backend.info, self.lang, self._gamma_shown),
                         state=self.pump.state.text(self.lang))
        self._choice_shown = choice = self.session.metrics.gamma_choice
        note = notes_text(self.backend.info, self.lang, self._check_shown)
        if choice is not None:  # which γ auto chose and why
            note = "; ".join(filter(None, (note, choice_text(choice, self.lang))))
        self.query_one("#note", Static).update(Text(note))

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
        """Show or hide the drafts after a rejection, and a tree's lost branches the other way round:
        a chain's discarded drafts start shown, a tree's branches hidden (they would outnumber
        the text); they keep their places, so a selection holds."""
        hidden = self._view.hidden ^ {TokenStatus.DISCARDED, TokenStatus.LOST}
        self._view.set_display(hidden=hidden)
        if self._view.holds(TokenStatus.LOST):  # a tree run: the key is about its branches
            key = "tree.lost_hidden" if TokenStatus.LOST in hidden else "tree.lost_shown"
        else:
            key = "toggle.discarded_hidden" if TokenStatus.DISCARDED in hidden else "toggle.discarded_shown"
        self.notify(text(key, self.lang), markup=False)

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
        from specview.features.live.end_run import ask_before_leaving
        from specview.features.live.preset_screen import choose_preset

        info = self.backend.info
        ask_before_leaving(self, info, self.lang, "live.preset",
                           lambda: choose_preset(self, info.preset, self.lang, self._switch_preset))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # keys that would do nothing in this run are not offered (footer and help)
        info = self.backend.info
        return {"run_for_real": info.preset is not None, "speed": info.pace is not None}.get(action, True)

    def action_run_for_real(self) -> None:
        from specview.features.live.real_run_screen import show_real_run

        show_real_run(self, self.backend.info.preset, self.lang)

    def action_copy(self) -> None:
        token = self._view.selected_token
        content = describe(token, self.lang) if token is not None else self._view.visible_text()
        if not content:
            self.notify(text("term.nothing_to_copy", self.lang), severity="warning")
            return
        self.app.copy_to_clipboard(content)
        done = fill("term.copied_token" if token is not None else "term.copied", self.lang, chars=len(content))
        self.notify(done, markup=False)

    def action_export(self) -> None:
        from specview.features.live.export_run import export_session

        export_session(self, self.session, self.spec, self.export_dir, self.lang)

    def switch_preset(self, preset_id: str) -> None:
        """Run `preset_id` on the simulator from the start (the Learn screens' Enter)."""
        self._switch_preset(preset_id)

    def learn_context(self) -> RunContext:
        """This run as the Learn screens see it: measured α, γ, c, τ, its model file."""
        return run_context(self.backend.info, self.session, self.spec)

    def action_learn_speedup(self) -> None:
        """The speedup lesson with this run's measured α, γ, c filled in."""
        from specview.features.learn.registry import lesson_named

        run = replace(self.learn_context(), fill=True)
        self.app.push_screen(lesson_named(SPEEDUP_LESSON).make_screen(self.lang, run))

    def action_learn_token(self) -> None:
        """The lossless lesson for the selected token: its position's real p and q (local backend, in a worker)."""
        from specview.features.learn.registry import lesson_named

        token, index = self._view.selected_token, self._view.selected
        if token is None or index is None:
            self.notify(text("learn.link.none", self.lang), severity="warning", markup=False)
            return
        run = replace(self.learn_context(), token=token)
        request = token_request(self.backend, self.spec, self._view.tokens, index, self.session.metrics.tokens)
        if isinstance(request, str):
            self.notify(text(request, self.lang), severity="warning", markup=False)
            self.app.push_screen(lesson_named(TOKEN_LESSON).make_screen(self.lang, run))
            return
        self.notify(text("learn.link.computing", self.lang), markup=False)
        self._token_rows(request, run)

    @work(thread=True, exclusive=True, exit_on_error=False, group="token-rows")
    def _token_rows(self, request: TokenRequest, run: RunContext) -> None:
        from specview.features.learn.registry import lesson_named

        try:
            rows = request.rows()
        except SpecviewError as exc:
            self.app.call_from_thread(notify_error, self, exc)
            return
        screen = lesson_named(TOKEN_LESSON).make_screen(self.lang, replace(run, token_rows=rows))
        self.app.call_from_thread(self.app.push_screen, screen)

    def _switch_preset(self, preset_id: str | None) -> None:
        if preset_id is None:
            return
        spec = self.spec.with_preset(preset_id)
        if spec.kind is not BackendKind.SIM:
            spec = RunSpec(preset=preset_id, seed=self.spec.seed, lang=self.spec.lang, speed=self.spec.speed)
        with user_action(self):
            backend = make_backend(spec)
            self.spec = spec
            self._start(backend)

    def _start(self, backend: Backend) -> None:
        """Stop the current run and start `backend` from the beginning."""
        reuse = backend is self.backend
        self.backend = backend
        self.refresh_bindings()  # `x` and the speed keys depend on the run
        with self.app.batch_update():
            self.query_one(TokenInfo).show(None)
            try:
                self.pump.restart(lambda: self._new_session(backend), close=not reuse)
            finally:
                self._describe()
                self.pumps.flush_numbers(force=True)

    def _new_session(self, backend: Backend) -> Session:
        session = Session(offload(backend), buffer_tokens=UI_BUFFER_TOKENS, keep_rounds=KEEP_ROUNDS)
        if self.record:
            from specview.features.record.recorder import start_recording

            try:
                start_recording(session, self.record, self.spec)
            except SpecviewError as exc:  # e.g. --record /dev/full: the run stops, and says why
                session.fail(exc.phrase)
        return session

    @on(TokenView.Selected)
    def _show_token(self, event: TokenView.Selected) -> None:
        token = event.token
        greedy = self.backend.info.temperature <= 0
        self.query_one(TokenInfo).show(None if token is None else describe(token, self.lang, greedy=greedy))
