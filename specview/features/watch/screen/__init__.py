"""The monitor of `specview watch`: a server's speculative decoding from /metrics, over time.

A Textual thread worker runs the poller (kernel/poller.py) every `interval` seconds into a
bounded buffer (a slow or dead server never blocks the UI). The screen drains it on the app's Throttle, like every
other screen: at most `numbers_hz` times a second, in one batch. The gauges are the gauge
table's WATCH view (drafted/s, accepted/s, α, mean accepted length, tokens/s, running
requests); below them the per-position acceptance of the last interval, and α and tokens/s
over time, and the requests running now where the engine tells them (llama-server's /slots;
for the others the pane says that they do not). Counter resets and broken counter invariants
are notified as they happen and counted. A scrape that has not answered within STALL_S (or
two intervals, if longer) shows as "stalled since …" while it waits; one that fails, or runs
past the request timeout, shows as stopped (its error notified once) until a poll succeeds
again (a restarted server is watched on).
"""

from __future__ import annotations

import time
from collections import deque

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from specview.boundary.text import number, sanitize
from specview.features.doctor.from_readings import from_watch
from specview.features.doctor.observe import Observation
from specview.features.doctor.screen import DoctorScreen
from specview.features.live.run_text import note_texts
from specview.features.watch.model import WatchModel, WatchSample
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.cadence import cadence_phrase
from specview.features.watch.model.position_reading import CONDITIONAL, position_reading
from specview.features.watch.model.requests import RequestsNow
from specview.features.watch.screen.load_text import load_lines
from specview.features.watch.screen.reading_text import reading_heading
from specview.features.watch.screen.requests_text import requests_lines
from specview.features.watch.source import ServerWatch
from specview.features.watch.source.plain_feed import PlainFeed
from specview.kernel.errors import SpecviewError, describe_error
from specview.kernel.gauges import WATCH, gauges, position_texts
from specview.kernel.poller import Poller
from specview.texts.catalog import fill, text
from specview.tui.gauges import violation_text, watch_texts
from specview.tui.notify import notify_error, notify_safe
from specview.tui.pump import RunState, Throttle
from specview.widgets.bindings import bind, key_hint, localize
from specview.widgets.chart_scale import RATE
from specview.widgets.history_chart import HistoryChart
from specview.widgets.position_bars import PositionBars
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.status_line import StatusLine

MAX_BUFFER = 1000  # polls the screen may lag behind (a frozen terminal never grows memory)
STALL_S = 3.0  # a scrape waiting longer than this (or two intervals) is late: the state says so
HISTORY = 240  # points of the α and tokens/s charts


class WatchScreen(Screen[None]):
    """Gauges and charts of one server, fed by a poller on a thread worker."""

    BINDINGS = [bind("space", "toggle_pause", "watch.pause"), bind("d", "doctor", "watch.doctor")]

    def __init__(self, source: ServerWatch, interval: float, lang: str = "en",
                 throttle: Throttle | None = None, plain: PlainFeed | None = None) -> None:
        super().__init__()
        localize(self, lang)
        self.source, self.interval, self.lang = source, interval, lang
        self.plain = plain  # the crossover's baseline: a plain server scraped beside, or a number given
        self.throttle = throttle or Throttle.default()
        self.model = WatchModel()
        self.state = RunState()
        self._buffer: deque[WatchSample | SpecviewError] = deque(maxlen=MAX_BUFFER)
        self.poller: Poller[WatchSample | None] = Poller(self._scrape, self._hand_over, interval,
                                                         interrupt=self._interrupt, name="specview-watch")
        self._alpha: deque[float] = deque(maxlen=HISTORY)
        self._tps: deque[float] = deque(maxlen=HISTORY)
        self._reading = CONDITIONAL  # the per-position bars' reading (model/position_reading.py)
        self.by_load = LoadTable(source.kind.active_gauge)  # α, yield, τ, tokens/s per running requests
        self._described = source.describe(learn=False)  # the polling thread learns the method
        self._failing = False  # the last poll failed (its error was notified)
        self.samples_shown = 0
        self.violations_shown = 0
        self.requests_now: RequestsNow | None = None  # the last poll's, set by the polling thread
        self.notes_shown: tuple[str, ...] = ()  # the scrape notes last notified (each told once, not every poll)

    def compose(self) -> ComposeResult:
        t = self.lang
        yield StatusLine(id="status")
        with Horizontal(id="watch-body"):
            with Vertical(id="watch-now"):
                for spec in gauges(WATCH):
                    yield StatGauge(text(spec.label_id, t), show_bar=spec.bar, id=f"g-{spec.key}")
                yield Label(text("watch.by_position", t), classes="watch-heading", id="by-position")
                yield PositionBars(text("bars.empty", t), id="g-positions")
            with Vertical(id="watch-time"):
                yield Label(text("gauge.alpha.label", t), classes="watch-heading")
                yield HistoryChart(RATE, rate=True, id="h-alpha")
                yield Label(text("gauge.tokens_per_second.label", t), classes="watch-heading")
                yield HistoryChart(id="h-tps")
                yield Static("", id="watch-totals", markup=False)
                yield Static("", id="watch-checks", markup=False)
                yield Static("", id="watch-requests", markup=False)
                yield Static("", id="watch-load", markup=False)
                yield Static(text("watch.alpha_note", t), classes="watch-heading", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self._gauges = {g.id.removeprefix("g-"): g for g in self.query(StatGauge) if g.id}
        self._status = self.query_one(StatusLine)
        self._status.set(what=self._title(), state=self.state.text(self.lang), hint=key_hint(self.app, "app.help"))
        self._worker = self.run_worker(self.poller.run, name="specview-watch", group="watch-poll", thread=True,
                                       exit_on_error=False)
        # the one throttle policy: the monitor's numbers at the rate every screen draws numbers
        self.set_interval(1 / self.throttle.numbers_hz, self.pump, name="watch-pump")

    def on_unmount(self) -> None:
        self.poller.stop()  # a scrape stuck on the server ends now, not at its deadline
        self._worker.cancel()
        self.source.close()
        if self.plain is not None:
            self.plain.close()

    def _interrupt(self) -> None:
        """End the scrapes in flight (the watched server's, the plain one's): stopping never waits."""
        self.source.interrupt()
        if self.plain is not None:
            self.plain.interrupt()

    def _title(self) -> str:
        return f"{text('watch.title', self.lang)} · {sanitize(self._described, 200, one_line=True)}"

    def _scrape(self) -> WatchSample | None:
        """One poll (on the worker's thread): the sample since the last, the method learnt."""
        if self.plain is not None:
            self.plain.poll()
        with self.source.one_poll():  # /slots asked once for all three
            sample = self.model.feed(self.source.scrape())
            self._described = self.source.describe()
            self.requests_now = self.source.requests()
        return sample

    def _hand_over(self, item: WatchSample | SpecviewError | None) -> None:
        """Into the buffer the pump drains; errors are handed over as they are."""
        if item is not None:
            self._buffer.append(item)

    def pump(self) -> None:
        """Drain what the thread found and redraw once."""
        latest: WatchSample | None = None
        while self._buffer:
            item = self._buffer.popleft()
            if isinstance(item, SpecviewError):
                self._failed(describe_error(item, self.lang))
                continue
            latest = item
            self._took(item)
        if latest is not None:
            self._failing = False
            if self.state.kind in ("stopped", "stalled"):  # the server answers again
                self._set_state("running")
            with self.app.batch_update():
                self._show(latest)
        self._check_stalled()

    def _check_stalled(self) -> None:
        """A scrape late past its due time: "stalled since HH:MM:SS (… for N s)" while it waits."""
        asking = self.poller.in_flight_since
        if asking is None or self.state.kind == "paused":
            if self.state.kind == "stalled":  # it answered (or failed: _failed has said so)
                self._set_state("running")
            return
        waited = time.monotonic() - asking[0]
        if waited < max(STALL_S, 2 * self.interval):
            return
        since = time.strftime("%H:%M:%S", time.localtime(asking[1]))
        reason = fill("net.watch_stalled", self.lang, since=since, seconds=int(waited))
        if self.state.kind != "stalled" or self.state.reason != reason:
            self.state = RunState("stalled", reason)
            self._status.set(state=self.state.text(self.lang))

    def _failed(self, message: str) -> None:
        """The first error of a run of failed polls is notified; the state says it until a poll works."""
        if not self._failing:  # a late scrape's "stalled" in between is no new run of failures
            notify_error(self, message, text("watch.stopped", self.lang))
        self._failing = True
        self.state = RunState("stopped", message)
        self._status.set(state=self.state.text(self.lang))

    def _took(self, sample: WatchSample) -> None:
        self.samples_shown += 1
        self.by_load.add(sample)
        self.by_load.baseline = self.plain.baseline() if self.plain is not None else None
        if sample.alpha is not None:
            self._alpha.append(sample.alpha)
        if sample.tokens_per_s is not None:
            self._tps.append(sample.tokens_per_s)
        if sample.reset:
            notify_safe(self, text("watch.reset", self.lang), severity="warning", timeout=10)
        notes = tuple(note_texts(sample.notes, self.lang))
        if notes and notes != self.notes_shown:
            notify_safe(self, "\n".join(notes), severity="warning", timeout=15)
        self.notes_shown = notes
        for v in sample.violations:
            self.violations_shown += 1
            notify_safe(self, violation_text(v, self.lang), title=text("watch.invariant", self.lang),
                        severity="error", timeout=15)

    def _show(self, s: WatchSample) -> None:
        t = self.lang
        for gauge in watch_texts(s, t):
            self._gauges[gauge.key].set(gauge.value, gauge.fraction, gauge.note)
        # marginal where drafts vary in length, said in the heading (kept through idle polls)
        self._reading, values = position_reading(s, self._reading)
        self.query_one("#by-position", Label).update(reading_heading(self._reading, t))
        self.query_one(PositionBars).set(position_texts(values))
        self.query_one("#h-alpha", HistoryChart).show(list(self._alpha))
        self.query_one("#h-tps", HistoryChart).show(list(self._tps))
        total = self.model.totals()
        counters = fill("watch.totals", t, drafts=total.drafts, drafted=total.draft_tokens, accepted=total.accepted,
                        alpha=number(total.alpha, ".3f"), length=number(total.mean_accepted_length, ".2f"),
                        resets=self.model.resets)
        self.query_one("#watch-totals", Static).update(Text(counters))
        if not self.model.has_drafts:
            checks = text("watch.no_counters", t)
        elif self.model.violations:
            checks = fill("watch.invariants_broken", t, n=len(self.model.violations))
        else:
            checks = text("watch.invariants_ok", t)
        cadence = cadence_phrase(s.cadence)
        said = (checks, *([cadence.render(t)] if cadence else []), *note_texts(s.notes, t))
        if s.accept_length_from_requests is not None:  # SGLang: τ from its counters, beside its gauge
            said += (fill("watch.requests_accept_length", t, value=f"{s.accept_length_from_requests:.2f}"),)
        self.query_one("#watch-checks", Static).update(Text("\n".join(said)))
        if self.requests_now is not None:
            self.query_one("#watch-requests", Static).update(Text("\n".join(requests_lines(self.requests_now, t))))
        self.query_one("#watch-load", Static).update(Text("\n".join(load_lines(self.by_load, t))))
        self._status.set(what=self._title(), extra=time.strftime("%H:%M:%S"))

    def _set_state(self, kind: str) -> None:
        self.state = RunState(kind)
        self._status.set(state=self.state.text(self.lang))

    def doctor_reading(self) -> Observation | None:
        """Doctor's observation from this watch's readings (None before the first poll came back)."""
        if self.model.last is None:
            return None
        facts, kind = self.source.facts, self.source.kind
        return from_watch(self.source.root, kind.id, facts.method, facts.gamma, facts.speculating, self.model,
                          self.samples_shown, self.by_load, facts.notes)

    def action_doctor(self) -> None:
        self.app.push_screen(DoctorScreen(self.doctor_reading, "watch", self.lang))

    def action_toggle_pause(self) -> None:
        if self.poller.paused:
            self.poller.resume()
            self._set_state("running")
        else:
            self.poller.pause()
            self._set_state("paused")
