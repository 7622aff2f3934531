"""The monitor of `specview watch`: a server's speculative decoding from /metrics, over time.

A small thread polls the source every `interval` seconds into a bounded buffer (a slow or
dead server never blocks the UI); the screen's timer drains it and updates the gauges in one
batch: drafted/s, accepted/s, α, mean accepted length, tokens/s, running requests, the
per-position acceptance of the last interval, and sparklines of α and tokens/s over time.
Counter resets and broken counter invariants are notified as they happen and counted.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from specview.backends.remote.watch_source import ServerWatch
from specview.core.errors import SpecviewError
from specview.core.text import number, sanitize
from specview.core.watch import WatchModel, WatchSample
from specview.texts.catalog import text
from specview.widgets.history_chart import HistoryChart
from specview.widgets.position_bars import PositionBars
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.status_line import StatusLine

UI_HZ = 10
MAX_BUFFER = 1000


class WatchScreen(Screen[None]):
    """Gauges and charts of one server, fed by a polling thread."""

    BINDINGS = [Binding("q", "app.quit", "quit"), Binding("space", "toggle_pause", "pause")]

    def __init__(self, source: ServerWatch, interval: float, lang: str = "en") -> None:
        super().__init__()
        self.source, self.interval, self.lang = source, interval, lang
        self.model = WatchModel()
        self._buffer: deque[WatchSample | str] = deque(maxlen=MAX_BUFFER)
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._thread: threading.Thread | None = None
        self._alpha: deque[float] = deque(maxlen=240)
        self._tps: deque[float] = deque(maxlen=240)
        self.samples_shown = 0
        self.violations_shown = 0

    def compose(self) -> ComposeResult:
        t = self.lang
        yield StatusLine(id="status")
        with Horizontal(id="watch-body"):
            with Vertical(id="watch-now"):
                yield StatGauge(text("watch_drafts_s", t), id="g-drafts")
                yield StatGauge(text("watch_accepted_s", t), id="g-accepted")
                yield StatGauge("α", show_bar=True, id="g-alpha")
                yield StatGauge(text("watch_mean_len", t), id="g-len")
                yield StatGauge(text("tps", t), id="g-tps")
                yield StatGauge(text("watch_active", t), id="g-active")
                yield Static(text("by_position", t), classes="watch-heading")
                yield PositionBars(id="g-positions")
            with Vertical(id="watch-time"):
                yield Static("α", classes="watch-heading")
                yield HistoryChart([], id="h-alpha")
                yield Static(text("tps", t), classes="watch-heading")
                yield HistoryChart([], id="h-tps")
                yield Static("", id="watch-totals")
                yield Static("", id="watch-checks")

    def on_mount(self) -> None:
        self.query_one(StatusLine).set(what=f"watch · {self.source.describe()}", state=text("running", self.lang))
        self._thread = threading.Thread(target=self._poll, name="specview-watch", daemon=True)
        self._thread.start()
        self.set_interval(1 / UI_HZ, self.pump, name="watch-pump")

    def on_unmount(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self.source.close()

    def _poll(self) -> None:
        """The polling thread: scrapes into the buffer; errors are handed over as text."""
        while not self._stop.is_set():
            if not self._paused.is_set():
                try:
                    sample = self.model.feed(self.source.scrape())
                except SpecviewError as exc:
                    self._buffer.append(str(exc))
                else:
                    if sample is not None:
                        self._buffer.append(sample)
            self._stop.wait(self.interval)

    def pump(self) -> None:
        """Drain what the thread found and redraw once."""
        latest: WatchSample | None = None
        while self._buffer:
            item = self._buffer.popleft()
            if isinstance(item, str):
                self.notify(sanitize(item), title=text("watch_stopped", self.lang), severity="error", timeout=10)
                continue
            latest = item
            self.samples_shown += 1
            if item.alpha is not None:
                self._alpha.append(item.alpha)
            if item.tokens_per_s is not None:
                self._tps.append(item.tokens_per_s)
            if item.reset:
                self.notify(text("watch_reset", self.lang), severity="warning", timeout=10)
            for v in item.violations:
                self.violations_shown += 1
                self.notify(f"{v.rule} ({v.where}: {v.detail})", title=text("watch_invariant", self.lang),
                            severity="error", timeout=15, markup=False)
        if latest is not None:
            with self.app.batch_update():
                self._show(latest)

    def _show(self, s: WatchSample) -> None:
        t = self.lang
        self.query_one("#g-drafts", StatGauge).set(number(s.drafts_per_s, ".1f"))
        self.query_one("#g-accepted", StatGauge).set(number(s.accepted_per_s, ".1f"))
        yield_note = f"{text('watch_yield', t)} {number(s.draft_yield, '.2f')}"
        self.query_one("#g-alpha", StatGauge).set(number(s.alpha, ".2f"), s.alpha, yield_note)
        self.query_one("#g-len", StatGauge).set(number(s.mean_accepted_length, ".2f"))
        self.query_one("#g-tps", StatGauge).set(number(s.tokens_per_s, ".1f"))
        self.query_one("#g-active", StatGauge).set(number(s.active, "g"))
        self.query_one(PositionBars).set(s.per_position_acceptance)
        self.query_one("#h-alpha", HistoryChart).show(list(self._alpha))
        self.query_one("#h-tps", HistoryChart).show(list(self._tps))
        total = self.model.totals()
        counters = (f"{text('watch_totals', t)}: {total.drafts} · {total.draft_tokens} → {total.accepted} · "
                    f"α {number(total.alpha, '.3f')} · {text('watch_mean_len', t)} "
                    f"{number(total.mean_accepted_length, '.2f')} · {text('watch_resets', t)} {self.model.resets}")
        self.query_one("#watch-totals", Static).update(counters)
        checks = text("watch_invariants_ok", t) if not self.model.violations else \
            f"{text('watch_invariant', t)}: {len(self.model.violations)}"
        if not self.model.has_drafts:
            checks = text("watch_no_counters", t)
        self.query_one("#watch-checks", Static).update(checks)
        self.query_one(StatusLine).set(extra=time.strftime("%H:%M:%S"))

    def action_toggle_pause(self) -> None:
        if self._paused.is_set():
            self._paused.clear()
            self.query_one(StatusLine).set(state=text("running", self.lang))
        else:
            self._paused.set()
            self.query_one(StatusLine).set(state=text("paused", self.lang))
