"""Compare 2–4 runs side by side: one pane each, a live summary table, one pump for all."""

from __future__ import annotations

import time

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import Footer

from specview.backends.process import offload
from specview.core.backend import Backend
from specview.core.metrics import MetricsSnapshot
from specview.core.session import Session
from specview.core.summary import summary_row
from specview.texts.catalog import text
from specview.tui.live_screen import PUMP_HZ
from specview.tui.notify import notify_safe
from specview.widgets.run_pane import RunPane
from specview.widgets.status_line import StatusLine
from specview.widgets.summary_table import SummaryTable
from specview.widgets.token_info import TokenInfo
from specview.widgets.token_view import TokenView

# Per run: several producers share one screen, so each may run less far ahead. Counted in
# tokens, so a γ 1 run and a γ 7 run get the same share of every frame.
COMPARE_BUFFER_TOKENS = 512
# Numbers (pane gauges, bars, the summary table) redraw at most this often; the streams every tick.
# Digits that change 30 times a second cannot be read, and redrawing them costs every pane a frame.
NUMBERS_HZ = 5


def run_label(backend: Backend) -> str:
    info = backend.info
    gamma = "" if info.gamma is None else f" γ{info.gamma}"
    return f"{info.backend}:{info.label}{gamma} T{info.temperature:g}"


class CompareScreen(Screen[None]):
    """Every run started together on the same prompt and seed; pause/step apply to all."""

    BINDINGS = [
        Binding("space", "toggle_pause", "pause all", id="compare.pause"),
        Binding("n", "step", "step all", id="compare.step"),
        Binding("l", "toggle_layout", "columns/rows", id="compare.layout"),
        Binding("f", "toggle_full", "full screen", id="compare.full",
                tooltip="Show only the focused pane (again to show all)"),
        Binding("x", "run_for_real", "run it for real", id="compare.real",
                tooltip="llama-server / vLLM / SGLang commands for the focused pane's preset"),
        Binding("tab", "app.focus_next", "next pane", show=False, id="compare.next"),
    ]

    def __init__(self, backends: list[Backend], lang: str = "en") -> None:
        super().__init__()
        self.backends = backends
        self.lang = lang
        self.sessions = [Session(offload(b), buffer_tokens=COMPARE_BUFFER_TOKENS) for b in backends]
        self.labels = [run_label(b) for b in backends]
        self.drawn_rounds = [0] * len(backends)
        self._errors_shown: set[int] = set()
        self._states = [""] * len(backends)
        self._stale: set[int] = set()  # panes whose numbers lag behind their stream
        self._numbers_at = 0.0

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Container(id="panes"):
            for i, label in enumerate(self.labels):
                yield RunPane(label, id=f"pane-{i}")
        yield TokenInfo(text("hint", self.lang), id="info")
        yield SummaryTable(id="summary")
        yield Footer()

    @property
    def panes(self) -> list[RunPane]:
        return list(self.query(RunPane))

    @property
    def paused(self) -> bool:
        return all(s.paused for s in self.sessions)

    def on_mount(self) -> None:
        what = f"compare · {len(self.sessions)} runs"
        paces = {b.info.pace.speed for b in self.backends if b.info.pace is not None}
        if len(paces) == 1:  # the simulators' (and replays') shared pace
            pace = paces.pop()
            what += f" · {pace:g}×" if pace > 0 else " · max speed"
        self.query_one(StatusLine).set(what=what, state=text("running", self.lang))
        self._panes = self.panes  # looked up once; the pump uses them every tick
        self._panes[0].view.focus()
        for session in self.sessions:
            session.start()
        self.set_interval(1 / PUMP_HZ, self.pump, name="pump")

    def on_unmount(self) -> None:
        for session in self.sessions:
            session.stop()

    def pump(self) -> None:
        """Drain every session once: streams are appended now, numbers at most NUMBERS_HZ."""
        with self.app.batch_update():
            for i, (pane, session) in enumerate(zip(self._panes, self.sessions, strict=True)):
                got = session.drain()
                if got.rounds or got.reconciled:
                    replace, tokens = session.drawable(got)
                    if replace:  # exact rounds replaced the inferred ones
                        pane.view.clear()
                    pane.append(tokens)
                    self.drawn_rounds[i] += len(got.rounds)
                    self._stale.add(i)
                    self._states[i] = ""
                elif (got.error or got.finished) and not self._states[i]:
                    self._states[i] = text("failed" if got.error else "finished", self.lang)
                    self._stale.add(i)
                if got.error and i not in self._errors_shown:
                    self._errors_shown.add(i)
                    notify_safe(self, got.error, title=self.labels[i], severity="error", timeout=30)
            now = time.monotonic()
            if self._stale and now - self._numbers_at >= 1 / NUMBERS_HZ:
                self._numbers_at = now
                snaps = [s.metrics.snapshot() for s in self.sessions]
                for i in self._stale:
                    self._panes[i].show(snaps[i], self._states[i])
                self._stale.clear()
                self.refresh_summary(snaps)
                if all(self._states):  # every run has ended
                    self.query_one(StatusLine).set(state=text("finished", self.lang))

    def refresh_summary(self, snaps: list[MetricsSnapshot] | None = None) -> None:
        if snaps is None:
            snaps = [s.metrics.snapshot() for s in self.sessions]
        rows = [summary_row(label, snap) for label, snap in zip(self.labels, snaps, strict=True)]
        self.query_one(SummaryTable).show(rows)

    def action_toggle_pause(self) -> None:
        pause = not self.paused
        for session in self.sessions:
            session.pause() if pause else session.resume()
        self.query_one(StatusLine).set(state=text("paused" if pause else "running", self.lang))

    def action_step(self) -> None:
        for session in self.sessions:
            session.pause()
            session.step()
        self.query_one(StatusLine).set(state=text("paused", self.lang))

    def action_toggle_layout(self) -> None:
        self.query_one("#panes").toggle_class("-rows")

    def _focused_pane(self) -> int:
        """Index of the pane that has the focus (the first when none has)."""
        focus = self.focused
        return next((i for i, p in enumerate(self.panes) if focus is not None and focus in p.walk_children()), 0)

    def action_run_for_real(self) -> None:
        from specview.tui.real_run_screen import show_real_run

        show_real_run(self, self.backends[self._focused_pane()].info.preset)

    @on(TokenView.Selected)
    def _show_token(self, event: TokenView.Selected) -> None:
        self.query_one(TokenInfo).show(event.token)

    def action_toggle_full(self) -> None:
        panes = self.panes
        focused = panes[self._focused_pane()]
        full = not focused.has_class("-full")
        for pane in panes:
            pane.set_class(full and pane is focused, "-full")
            pane.display = not full or pane is focused
