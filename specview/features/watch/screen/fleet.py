"""The fleet screen: every instance of a fleet in one table, sorted, filtered, with its alerts.

A Textual worker thread polls the `FleetSource` every `interval` seconds and folds the readings
into a `FleetSnapshot` (the fleet model's `fold`, passed in), into a bounded buffer; the screen
drains it on the app's Throttle and draws the latest snapshot in one batch (`show`). Alerts of
every snapshot drained go to the log pane as they fire, each once; with `--on-alert`, the log's
title says where its runs stand (running, waiting, coalesced: model/alert_queue.py). Keys:
`space` pauses the polling, `s` cycles the sort column and `r` reverses it (the caption and the
header say which), `/` filters by a regular expression over instance, engine and method
(fleet_filter.py: bounded), `esc` clears the filter, `enter` opens the instance: the
single-server watch for a server we can reach (`open_server` returns its ServerWatch), else the
instance's own screen from its readings.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Log

from specview.boundary.text import number
from specview.features.watch.model.alert_queue import HookCounts
from specview.features.watch.model.fleet import (
    Alert,
    FleetSnapshot,
    FleetSource,
    InstanceKey,
    InstanceReading,
    InstanceRow,
    State,
)
from specview.features.watch.screen import WatchScreen
from specview.features.watch.screen.fleet_cells import (
    BY_ID,
    SORTABLE,
    alert_line,
    engine_text,
    fitting,
    header_cells,
    row_cells,
    sort_rows,
    totals_cells,
)
from specview.features.watch.screen.fleet_filter import FilterError, FleetFilter
from specview.features.watch.screen.fleet_instance import InstanceScreen
from specview.features.watch.source import ServerWatch
from specview.kernel.errors import SpecviewError, describe_error
from specview.kernel.poller import Poller
from specview.texts.catalog import fill, text
from specview.tui.notify import notify_error, notify_safe
from specview.tui.pump import RunState, Throttle
from specview.widgets.bindings import bind, key_hint, localize
from specview.widgets.fleet_table import FleetTable, TableRow
from specview.widgets.status_line import StatusLine
from specview.widgets.text_line import TextLine

Fold = Callable[[tuple[InstanceReading, ...]], FleetSnapshot]
OpenServer = Callable[[str], ServerWatch | None]
MAX_BUFFER = 100  # snapshots the screen may lag behind (a frozen terminal never grows memory)
MAX_LOG = 500  # alert lines the log keeps
SEEN_ALERTS = 10_000  # alerts remembered as already logged (then forgotten oldest first)


class FleetWatchScreen(WatchScreen):
    """The single-server watch, opened from the fleet: `esc` goes back to it."""

    BINDINGS = [bind("escape", "back", "fleetscreen.watch_back")]

    def action_back(self) -> None:
        self.dismiss()


class FleetScreen(Screen[None]):
    """The fleet table, its caption, the alert log and the filter line."""

    DEFAULT_CSS = """
    FleetScreen #fleet-caption { color: $text-muted; padding: 0 1; }
    FleetScreen #fleet-table { height: 1fr; padding: 0 1; }
    FleetScreen #fleet-log-title { color: $text-muted; padding: 0 1; }
    FleetScreen #fleet-log { height: 5; padding: 0 1; overflow-x: hidden; }
    FleetScreen #fleet-filter { display: none; height: 1; border: none; padding: 0 1; }
    FleetScreen.-filtering #fleet-filter { display: block; }
    """
    BINDINGS = [
        bind("s", "sort", "fleetscreen.sort"),
        bind("r", "reverse", "fleetscreen.reverse"),
        bind("slash", "filter", "fleetscreen.filter"),
        bind("enter", "open", "fleetscreen.open"),
        bind("escape", "clear_filter", "fleetscreen.clear", show=False),
        bind("space", "toggle_pause", "fleetscreen.pause"),
    ]

    def __init__(self, source: FleetSource, fold: Fold, interval: float, lang: str = "en",
                 throttle: Throttle | None = None, open_server: OpenServer | None = None) -> None:
        super().__init__()
        localize(self, lang)
        self.source, self.fold, self.interval, self.lang = source, fold, interval, lang
        self.throttle = throttle or Throttle.default()
        self.open_server = open_server
        self._buffer: deque[FleetSnapshot | SpecviewError] = deque(maxlen=MAX_BUFFER)
        self.poller: Poller[FleetSnapshot] = Poller(self._fold_poll, self._buffer.append, interval,
                                                    interrupt=source.interrupt, name="specview-fleet")
        self._failing = False
        self._seen: dict[tuple[str, str | None, float], None] = {}
        self.snapshot: FleetSnapshot | None = None
        self.sort, self.reverse = "instance", False
        self.filter = FleetFilter()
        self.shown: list[InstanceRow] = []  # the rows in the table, in its order
        self.cursor_instance: str | None = None
        self.cursor_key: InstanceKey | None = None  # the same row by its labels: a name may change, the labels not
        self.alerts_logged = 0
        self.snapshots_shown = 0
        self.hook_line = ""  # the log title's --on-alert part, as shown

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        yield TextLine("", id="fleet-caption")
        table = FleetTable(id="fleet-table")
        localize(table, self.lang)
        yield table
        yield Label(text("fleetscreen.log", self.lang), id="fleet-log-title")
        yield Log(id="fleet-log", max_lines=MAX_LOG)
        yield Input(placeholder=text("fleetscreen.filter_prompt", self.lang), id="fleet-filter")
        yield Footer()

    def on_mount(self) -> None:
        self._status = self.query_one(StatusLine)
        self._status.set(what=text("fleetscreen.title", self.lang), state=text("fleetscreen.waiting", self.lang),
                         hint=key_hint(self.app, "app.help"))
        self.query_one(FleetTable).focus()
        self._worker = self.run_worker(self.poller.run, name="specview-fleet", group="fleet-poll", thread=True)
        # (exit_on_error stays on: a bug in the poll ends the app with its report)
        self.set_interval(1 / self.throttle.numbers_hz, self.pump, name="fleet-pump")

    def on_unmount(self) -> None:
        self.poller.stop()  # interrupts a poll stuck on a server: it ends now, not at its deadline
        self._worker.cancel()
        self.source.close()

    def _fold_poll(self) -> FleetSnapshot:
        """One poll and one fold (on the worker's thread); the Poller hands errors over as data."""
        return self.fold(self.source.poll())

    def pump(self) -> None:
        """Drain what the thread found: log every alert, draw the latest snapshot once."""
        latest: FleetSnapshot | None = None
        while self._buffer:
            item = self._buffer.popleft()
            if isinstance(item, SpecviewError):
                if not self._failing:
                    notify_error(self, describe_error(item, self.lang), text("fleetscreen.poll_failed", self.lang))
                self._failing = True
                continue
            self._failing = False
            latest = item
            self._log_alerts(item)
        if latest is not None:
            with self.app.batch_update():
                self.show(latest)

    def _log_alerts(self, snapshot: FleetSnapshot) -> None:
        alerts: list[Alert] = list(snapshot.alerts)
        for row in snapshot.rows:
            alerts += row.alerts
        log = self.query_one(Log)
        for alert in alerts:
            key = (alert.kind.value, alert.instance, alert.since)
            if key in self._seen:
                continue
            if len(self._seen) >= SEEN_ALERTS:
                del self._seen[next(iter(self._seen))]
            self._seen[key] = None
            log.write_line(alert_line(alert, self.lang))
            self.alerts_logged += 1

    def show(self, snapshot: FleetSnapshot) -> None:
        """Draw one snapshot: the table in its sort and filter, the caption, the status line, and
        any instance screen open on top. (bench/fleet_watch.py times this with `await pilot.pause()`.)"""
        self.snapshot = snapshot
        self.snapshots_shown += 1
        self._draw()
        if snapshot.hooks is not None:
            self._show_hooks(snapshot.hooks)
        for opened in self.app.screen_stack:  # on top, or under the doctor screen it opened
            if isinstance(opened, InstanceScreen):
                opened.update(next((r for r in snapshot.rows if r.key == opened.key), None), snapshot.window_s)

    def _draw(self) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        t = self.lang
        table = self.query_one(FleetTable)
        columns, widths = fitting(max(20, table.scrollable_content_region.width or self.size.width - 3))
        matching = [r for r in snapshot.rows if self.filter.matches(r.instance, engine_text(r), r.method or "")]
        self.shown = sort_rows(matching, self.sort, self.reverse)
        cursor = next((i for i, r in enumerate(self.shown) if r.key == self.cursor_key), table.cursor)
        body = [TableRow(tuple(row_cells(r, columns, widths, t)), _kind(r)) for r in self.shown]
        table.show(header_cells(columns, self.sort, self.reverse, t), body, totals_cells(snapshot, columns, t),
                   widths, [c.right for c in columns], cursor)
        if self.shown:
            self.cursor_instance, self.cursor_key = self.shown[table.cursor].instance, self.shown[table.cursor].key
        self.query_one("#fleet-caption", TextLine).show(self._caption(snapshot, len(matching)))
        self._status.set(state=self._state_text())

    def _show_hooks(self, counts: HookCounts) -> None:
        """The log's title with where `--on-alert`'s runs stand (redrawn only when it changed)."""
        line = fill("alert_queue.screen", self.lang, running=counts.running, waiting=counts.waiting,
                    coalesced=counts.coalesced, started=counts.started, timed_out=counts.timed_out)
        if line == self.hook_line:
            return
        self.hook_line = line
        title = f"{text('fleetscreen.log', self.lang)} · {line}"
        self.query_one("#fleet-log-title", Label).update(Text(title, no_wrap=True, overflow="ellipsis"))

    def _state_text(self) -> str:
        """'4 up · 1 down · 0 stalled', or that polling is paused."""
        if self.poller.paused:
            return RunState("paused").text(self.lang)
        rows = self.snapshot.rows if self.snapshot is not None else ()
        counts = {state: sum(r.state is state for r in rows) for state in State}
        return fill("fleetscreen.counts", self.lang, up=counts[State.UP], down=counts[State.DOWN],
                    stalled=counts[State.STALLED])

    def action_toggle_pause(self) -> None:
        """Stop polling (the table stays as it is) or start again."""
        if self.poller.paused:
            self.poller.resume()
        else:
            self.poller.pause()
        self._status.set(state=self._state_text())

    def _caption(self, snapshot: FleetSnapshot, matching: int) -> str:
        t = self.lang
        order = text("fleetscreen.descending" if self.reverse else "fleetscreen.ascending", t)
        parts = [fill("fleetscreen.sorted", t, column=text(f"fleetscreen.col.{self.sort}", t), order=order)]
        if self.filter.pattern:
            parts.append(fill("fleetscreen.filtered", t, pattern=self.filter.pattern, shown=matching,
                              n=len(snapshot.rows)))
        parts.append(fill("fleetscreen.window", t, seconds=number(snapshot.window_s, "g")))
        return " · ".join(parts)

    def on_resize(self) -> None:
        self._draw()

    def on_fleet_table_moved(self, message: FleetTable.Moved) -> None:
        if 0 <= message.row < len(self.shown):
            self.cursor_instance, self.cursor_key = self.shown[message.row].instance, self.shown[message.row].key

    def action_sort(self) -> None:
        self.sort = SORTABLE[(SORTABLE.index(self.sort) + 1) % len(SORTABLE)]
        self.reverse = BY_ID[self.sort].right  # numbers: the largest first
        self._draw()

    def action_reverse(self) -> None:
        self.reverse = not self.reverse
        self._draw()

    def action_filter(self) -> None:
        field = self.query_one("#fleet-filter", Input)
        field.value = self.filter.pattern
        self.add_class("-filtering")
        field.focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        self._end_filtering()
        try:
            self.filter = FleetFilter.of(message.value)
        except FilterError as exc:
            notify_error(self, describe_error(exc, self.lang), text("fleetscreen.filter_refused", self.lang))
            return
        self._draw()

    def _end_filtering(self) -> None:
        self.remove_class("-filtering")
        self.query_one(FleetTable).focus()

    def action_clear_filter(self) -> None:
        if self.has_class("-filtering"):
            self._end_filtering()
            return
        if self.filter.pattern:
            self.filter = FleetFilter()
            self._draw()

    def action_open(self) -> None:
        if self.shown:
            self._open(self.shown[self.query_one(FleetTable).cursor])

    @work(thread=True, exclusive=True, group="fleet-open")
    def _open(self, row: InstanceRow) -> None:
        """Reach the server (detection asks it: not on the UI thread), or show the instance's readings."""
        window = self.snapshot.window_s if self.snapshot is not None else self.interval
        try:
            server = self.open_server(row.instance) if self.open_server is not None else None
        except SpecviewError as exc:
            self.app.call_from_thread(notify_safe, self, describe_error(exc, self.lang),
                                      title=text("fleetscreen.open_failed", self.lang),
                                      severity="warning", timeout=15)
            server = None
        if server is None:
            self.app.call_from_thread(self.app.push_screen, InstanceScreen(row, window, self.lang))
        else:
            screen = FleetWatchScreen(server, self.interval, self.lang, self.throttle)
            self.app.call_from_thread(self.app.push_screen, screen)


def _kind(row: InstanceRow) -> str:
    """The row's style: an alert first, then down, then an outlier."""
    if row.alerts:
        return "alert"
    if row.state is not State.UP:
        return "down"
    return "outlier" if row.outlier else "plain"
