"""Compare 2–4 runs side by side: one pane and one pump each, a live summary table, one timer."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult

from specview.backends.factory import make_backend
from specview.backends.process import offload
from specview.boundary.text import sanitize
from specview.features.live.inspector import describe
from specview.features.live.run_text import compare_title
from specview.kernel.backend import Backend
from specview.kernel.gauges import position_texts
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.texts.catalog import Phrase, text
from specview.tui.context_texts import context_texts
from specview.tui.gauges import origin_text, pane_texts, summary_texts
from specview.tui.notify import TITLE_CHARS, notify_error, user_action
from specview.tui.pump import Pump, Pumps, Throttle
from specview.tui.pumped_screen import PumpedScreen
from specview.widgets.bindings import bind, key_hint, localize
from specview.widgets.run_pane import RunPane
from specview.widgets.settled import SettledContainer, SettledFooter
from specview.widgets.status_line import StatusLine
from specview.widgets.summary_table import SummaryTable
from specview.widgets.token_info import TokenInfo
from specview.widgets.token_view import TokenView

# Per run: several producers share one screen, so each may run less far ahead. Counted in
# tokens, so a γ 1 run and a γ 7 run get the same share of every frame.
COMPARE_BUFFER_TOKENS = 512


class CompareScreen(PumpedScreen):
    """Every run started together on the same prompt and seed; pause/step apply to all."""

    BINDINGS = [
        bind("space", "toggle_pause", "compare.pause"),
        bind("n", "step", "compare.step"),
        bind("l", "toggle_layout", "compare.layout"),
        bind("f", "toggle_full", "compare.full"),
        bind("p", "choose_preset", "compare.preset"),
        bind("x", "run_for_real", "compare.real"),
        bind("tab", "app.focus_next", "compare.next", show=False),
    ]

    def __init__(self, backends: list[Backend], lang: str = "en", throttle: Throttle | None = None,
                 specs: Sequence[RunSpec] | None = None) -> None:
        super().__init__()
        localize(self, lang)
        self.backends = backends
        # what each pane was built from, so `p` can rebuild it on another preset
        self.specs = list(specs) if specs is not None else [_spec_of(b) for b in backends]
        self.lang = lang
        self.throttle = throttle or Throttle.default()
        self._panes = [RunPane(self._label(b), text("bars.empty", lang), id=f"pane-{i}")
                       for i, b in enumerate(backends)]
        for pane in self._panes:
            localize(pane.view, lang)
        self.pumps = Pumps(
            [Pump(self._session(b), pane, on_error=self._run_failed, title=self._label(b))
             for b, pane in zip(backends, self._panes, strict=True)],
            self.throttle, self._draw_numbers,
        )

    @staticmethod
    def _label(backend: Backend) -> str:
        return sanitize(backend.info.run_label, TITLE_CHARS, one_line=True)

    @staticmethod
    def _session(backend: Backend) -> Session:
        return Session(offload(backend), buffer_tokens=COMPARE_BUFFER_TOKENS)

    @property
    def sessions(self) -> list[Session]:
        return [p.session for p in self.pumps.pumps]

    @property
    def labels(self) -> list[str]:
        return [self._label(b) for b in self.backends]

    @property
    def drawn_rounds(self) -> list[int]:
        return self.pumps.drawn_rounds

    @property
    def panes(self) -> list[RunPane]:
        return list(self._panes)

    @property
    def paused(self) -> bool:
        return all(p.paused for p in self.pumps.pumps)

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with SettledContainer(id="panes"):
            yield from self._panes
        yield TokenInfo(text("live.hint", self.lang), id="info")
        yield SummaryTable(id="summary")
        yield SettledFooter()

    def on_mount(self) -> None:
        self._status = self.query_one(StatusLine)
        self._status.set(what=compare_title([b.info.pace for b in self.backends], self.lang),
                         state=self.pumps.state_text(self.lang), hint=key_hint(self.app, "app.help"))
        self._panes[0].view.focus()
        self.pumps.start(self)

    def on_unmount(self) -> None:
        self.pumps.stop()

    def _run_failed(self, message: Phrase | str, title: str) -> None:
        notify_error(self, message, title)

    def _draw_numbers(self, stale: Sequence[Pump]) -> None:
        """The stale panes' gauge lines and bars, the summary table and the shared state."""
        readings = [p.reading() for p in self.pumps.pumps]
        for pump, pane, reading in zip(self.pumps.pumps, self._panes, readings, strict=True):
            if pump in stale:
                state = pump.state.text(self.lang) if pump.state.ended else origin_text(reading, self.lang)
                if (ctx := context_texts(reading, self.lang)).decayed:  # acceptance falls with context: say so
                    state = f"{ctx.mark} · {state}"
                pane.show(pane_texts(reading, self.lang), state,
                          position_texts(reading.snap.per_position_acceptance))
        table = summary_texts(self.labels, readings, self.lang)
        self.query_one(SummaryTable).show(table.headers, table.labels, table.cells, table.lead, table.drop)
        self._status.set(state=self.pumps.state_text(self.lang))

    def refresh_summary(self) -> None:
        """Redraw every number now."""
        for pump in self.pumps.pumps:
            pump.stale = True
        self.pumps.flush_numbers(force=True)

    def action_toggle_pause(self) -> None:
        pause = not self.paused
        for pump in self.pumps.pumps:
            pump.pause() if pause else pump.resume()
        self.pumps.flush_numbers()

    def action_step(self) -> None:
        for pump in self.pumps.pumps:
            pump.step()
        self.pumps.flush_numbers()

    def action_toggle_layout(self) -> None:
        self.query_one("#panes").toggle_class("-rows")

    def _focused_pane(self) -> int:
        """Index of the pane that has the focus (the first when none has)."""
        focus = self.focused
        return next((i for i, p in enumerate(self._panes) if focus is not None and focus in p.walk_children()), 0)

    def action_run_for_real(self) -> None:
        from specview.features.live.real_run_screen import show_real_run

        show_real_run(self, self.backends[self._focused_pane()].info.preset, self.lang)

    def action_choose_preset(self) -> None:
        from specview.features.live.end_run import ask_before_leaving
        from specview.features.live.preset_screen import choose_preset

        index = self._focused_pane()
        info = self.backends[index].info
        ask_before_leaving(self, info, self.lang, "compare.preset", lambda: choose_preset(
            self, info.preset, self.lang, lambda chosen: self._switch_preset(index, chosen)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `x` only where some pane runs a preset (the focused one without says so)
        if action == "run_for_real":
            return any(backend.info.preset is not None for backend in self.backends)
        return True

    def _switch_preset(self, index: int, preset_id: str | None) -> None:
        """Run the focused pane again on another simulator preset (same seed and pace)."""
        if preset_id is None:
            return
        old = self.specs[index]
        spec = old.with_preset(preset_id) if old.kind == "sim" else RunSpec(
            preset=preset_id, seed=old.seed, lang=old.lang, speed=old.speed)
        with user_action(self, self.labels[index]):
            backend = make_backend(spec)
            self.specs[index], self.backends[index] = spec, backend
            self.refresh_bindings()  # `x` may be offered now
            pump, pane = self.pumps.pumps[index], self._panes[index]
            pump.title = self._label(backend)
            pane.border_title = Text(pump.title)
            pump.restart(lambda: self._session(backend))
            self.pumps.flush_numbers(force=True)

    @on(TokenView.Selected)
    def _show_token(self, event: TokenView.Selected) -> None:
        token = event.token
        info = self.backends[self._focused_pane()].info  # the selection is in the focused pane
        shown = None if token is None else describe(token, self.lang, greedy=info.temperature <= 0)
        self.query_one(TokenInfo).show(shown)

    def action_toggle_full(self) -> None:
        focused = self._panes[self._focused_pane()]
        full = not focused.has_class("-full")
        for pane in self._panes:
            pane.set_class(full and pane is focused, "-full")
            pane.display = not full or pane is focused


def _spec_of(backend: Backend) -> RunSpec:
    """A simulator spec with a run's seed and pace (when the caller gave none)."""
    info = backend.info
    return RunSpec(preset=info.preset, seed=info.seed or 0, speed=info.pace.speed if info.pace else 1.0)
