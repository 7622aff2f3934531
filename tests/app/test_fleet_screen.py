"""The fleet screen, driven by a pilot: sort, filter, enter/esc, marks beyond colour, 80×24, zh and en.

The snapshots are plain data (tests/support/fleet_snapshots.py), folded from each poll of a source
that answers with their readings; the single-server watch that `enter` opens talks to a real HTTP
server on 127.0.0.1 serving llama-server's endpoints.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot

from specview.features.watch.fleet_app import FleetApp
from specview.features.watch.model.fleet import Alert, AlertKind, FleetSnapshot
from specview.features.watch.screen.fleet import FleetScreen, FleetWatchScreen
from specview.features.watch.screen.fleet_cells import alert_text
from specview.features.watch.screen.fleet_filter import MAX_REPEATS
from specview.features.watch.screen.fleet_instance import InstanceScreen
from specview.features.watch.source import ServerWatch
from specview.kernel.langs import LANGS
from specview.texts.catalog import fill, text
from specview.tui.help_screen import HelpScreen
from specview.widgets.fleet_table import FleetTable
from tests.support.app_helpers import wait_until
from tests.support.catalog_walk import screen_text, strays, words
from tests.support.fleet_snapshots import T0, Snapshots, five, fleet, row, window
from tests.support.hostile_server import HostileServer, Scenario, hostile_server
from tests.support.notices import notices

# what the snapshots name (data, not interface): engines, methods, hosts
DATA = words("llama-server vllm draft-mtp ngram-simple eagle3 http connection refused") | {"mtp"}


def fleet_app(snapshot: FleetSnapshot, lang: str = "en",
              server: HostileServer | None = None) -> tuple[FleetApp, Snapshots]:
    source = Snapshots(snapshot)
    open_server = (lambda url: ServerWatch(server.root) if url.endswith(":8000") else None) if server else None
    return FleetApp(source, source.fold, 0.05, lang=lang, open_server=open_server), source


def fleet_screen(app: FleetApp) -> FleetScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, FleetScreen)
    return screen


async def shown(pilot: Pilot[None], polls: int = 1) -> FleetScreen:
    """Wait until the screen has drawn `polls` snapshots."""
    screen = fleet_screen(pilot.app)  # type: ignore[arg-type]
    await wait_until(pilot, lambda: screen.snapshots_shown >= polls)
    await pilot.pause()
    return screen


def order(screen: FleetScreen) -> list[str]:
    return [r.instance.rsplit(":", 1)[1] for r in screen.shown]


def lines(app: FleetApp) -> list[str]:
    return screen_text(app).splitlines()


async def test_the_sort_key_cycles_columns_and_the_header_says_which() -> None:
    app, _ = fleet_app(five())
    async with app.run_test(size=(130, 30)) as pilot:
        screen = await shown(pilot)
        assert order(screen) == ["8000", "8001", "8002", "8003", "8004"]
        assert "instance▲" in lines(app)[2]
        await pilot.press("s")  # the next column: engine, ascending
        assert screen.sort == "engine"
        assert "engine · method▲" in lines(app)[2]
        assert "sorted by engine · method (ascending)" in lines(app)[1]
        while screen.sort != "alpha":
            await pilot.press("s")
        await pilot.pause()
        # numbers sort largest first; an instance without α (down) stays last either way
        assert order(screen) == ["8000", "8001", "8002", "8003", "8004"]
        assert "α▼" in lines(app)[2] and "(descending)" in lines(app)[1]
        await pilot.press("r")
        await pilot.pause()
        assert order(screen) == ["8003", "8002", "8001", "8000", "8004"]
        assert "α▲" in lines(app)[2]
        while screen.sort != "state":
            await pilot.press("s")
        await pilot.pause()
        assert order(screen)[0] == "8004"  # down first (the worst state sorts first ascending)
        seen = {screen.sort}
        for _ in range(20):
            await pilot.press("s")
            seen.add(screen.sort)
        assert len(seen) == 12  # every column, the marks and the sparkline included


async def test_the_filter_narrows_by_regex_and_a_bad_one_is_one_notice() -> None:
    app, _ = fleet_app(five())
    async with app.run_test(size=(130, 30)) as pilot:
        screen = await shown(pilot)
        await pilot.press("slash", *"800[12]", "enter")
        await pilot.pause()
        assert order(screen) == ["8001", "8002"]
        assert "filter /800[12]/: 2 of 5" in lines(app)[1]
        await pilot.press("slash", *"(eagle|NGRAM)", "enter")  # engine and method too, any case
        await pilot.pause()
        assert order(screen) == ["8002", "8003"]
        seen = {n.identity for n in notices(app)}

        async def refused(pattern: str) -> list[str]:
            """Type `pattern` as the filter; the notices it raised, waited for and told apart by identity
            (on a busy machine an earlier notice's time can be up meanwhile, so positions shift)."""
            await pilot.press("slash", *pattern, "enter")
            await wait_until(pilot, lambda: any(n.identity not in seen for n in notices(app)))
            await pilot.pause()
            new = [n for n in notices(app) if n.identity not in seen]
            seen.update(n.identity for n in new)
            return [n.message for n in new]

        assert await refused("800(") == [fill("fleetscreen.filter.invalid", at=3)]
        assert order(screen) == ["8002", "8003"]  # the filter in force stays
        assert await refused("(a|aa)*b") == [fill("fleetscreen.filter.nested")]  # exponential in `re`: not run
        assert await refused("a*" * (MAX_REPEATS + 1)) == [fill("fleetscreen.filter.repeats")]
        assert order(screen) == ["8002", "8003"]
        await pilot.press("escape")  # esc clears the filter
        await pilot.pause()
        assert len(screen.shown) == 5 and "filter" not in lines(app)[1]


@pytest.fixture
def llama_like() -> Iterator[HostileServer]:
    """A server answering llama-server's /props, /slots and /metrics (a real HTTP server)."""
    metrics = ("# TYPE llamacpp:spec_decode_num_drafts counter\nllamacpp:spec_decode_num_drafts_total 20\n"
               "llamacpp:spec_decode_num_draft_tokens_total 40\nllamacpp:spec_decode_num_accepted_tokens_total 25\n")
    props = {"build_info": "b1-test", "default_generation_settings": {"params": {"speculative.types": "draft-mtp"}}}
    with hostile_server() as server:
        server.scenario = Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                                   get={"/props": (200, "application/json", json.dumps(props).encode()),
                                        "/slots": (200, "application/json", b"[]"),
                                        "/metrics": (200, "text/plain; version=0.0.4", metrics.encode())})
        yield server


async def test_enter_opens_the_server_watch_or_the_readings_and_esc_comes_back(llama_like: HostileServer) -> None:
    app, _ = fleet_app(five(), server=llama_like)
    async with app.run_test(size=(130, 30)) as pilot:
        screen = await shown(pilot)
        await pilot.press("enter")  # on 8000: a server we reach, watched on its own
        await wait_until(pilot, lambda: isinstance(app.screen, FleetWatchScreen))
        watch = app.screen
        await wait_until(pilot, lambda: watch.samples_shown >= 1)  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: "llama-server" in screen_text(app))  # a sample shown, then drawn
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await pilot.press("down", "down", "down", "enter")  # 8003: no server of ours, its readings
        await wait_until(pilot, lambda: isinstance(app.screen, InstanceScreen))
        assert app.screen.instance == "http://127.0.0.1:8003"  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: "eagle3" in screen_text(app))  # the new screen drawn
        shown_text = screen_text(app)
        assert "eagle3" in shown_text and "γ 5" in shown_text and "≠ outlier" in shown_text
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        assert screen.cursor_instance == "http://127.0.0.1:8003"  # the cursor stays where it was


async def test_alert_and_outlier_rows_carry_marks_not_only_colour_and_the_log_lists_each_alert_once() -> None:
    app, source = fleet_app(five())
    async with app.run_test(size=(130, 30)) as pilot:
        screen = await shown(pilot, polls=3)
        marks = {line[4:30].split()[0]: line[:3] for line in lines(app)[3:8]}
        assert marks["127.0.0.1:8003"] == " ∅≠"  # not working, and the outlier
        assert marks["127.0.0.1:8004"] == " ✗ "  # down
        assert marks["127.0.0.1:8000"] == "   "
        assert screen.alerts_logged == 2  # three polls, the same two alerts: logged once each
        log = screen_text(app)
        broken = next(a for r in source.now.rows for a in r.alerts if a.kind is AlertKind.NOT_WORKING)
        assert "∅ http://127.0.0.1:8003 — " + alert_text(broken, "en") in log
        assert "120 drafts" in alert_text(broken, "en")  # its values fill the fleet's text
        drop = Alert(AlertKind.ALPHA_DROP, "http://127.0.0.1:8001", T0 + 2,
                     {"before": 0.6, "after": 0.2, "drop": 0.4, "threshold": 0.15})
        rows = list(source.now.rows)
        rows[1] = row("http://127.0.0.1:8001", sample=window(40, 20, 150), alerts=(drop,))
        source.now = fleet(tuple(rows))
        await wait_until(pilot, lambda: screen.alerts_logged == 3)
        await pilot.pause()
        marks = {line[4:30].split()[0]: line[:3] for line in lines(app)[3:8]}
        assert marks["127.0.0.1:8001"] == " ↓ "
        # the styles differ too (colour where there is colour)
        table = screen.query_one(FleetTable)
        kinds = {r.instance[-4:]: k.kind for r, k in zip(screen.shown, table.rows, strict=True)}
        assert kinds == {"8000": "plain", "8001": "alert", "8002": "plain", "8003": "alert", "8004": "alert"}
    assert source.polls >= 4 and source.closed.is_set()  # polled on a thread; closed when the app ends


async def test_space_pauses_the_polling_and_says_so() -> None:
    app, source = fleet_app(five())
    async with app.run_test(size=(130, 30)) as pilot:
        screen = await shown(pilot)
        await pilot.press("space")
        await wait_until(pilot, lambda: screen.poller.in_flight_since is None)  # a poll under way may still land
        polls = source.polls
        await wait_until(pilot, lambda: text("state.paused") in lines(app)[0])  # said once drawn
        await pilot.pause(0.3)  # six intervals with no poll (nothing to wait for: that nothing comes is the point)
        assert source.polls == polls
        drawn = screen.snapshots_shown
        await pilot.press("space")
        await wait_until(pilot, lambda: source.polls > polls)
        await wait_until(pilot, lambda: screen.snapshots_shown > drawn)  # the poll after the pause, shown
        await wait_until(pilot, lambda: "4 up · 1 down" in lines(app)[0] and text("state.paused") not in lines(app)[0])


async def test_80x24_keeps_the_key_columns_on_one_line_each_and_enter_shows_the_rest() -> None:
    long_name = "http://" + "very-long-host-name." * 10 + "example:9999"
    snapshot = five()
    app, _ = fleet_app(fleet((*snapshot.rows, row(long_name, sample=window(10, 5, 30)))))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shown(pilot)
        shown_lines = lines(app)
        header = shown_lines[2]
        assert "instance▲" in header and "α" in header and "state" in header
        assert "engine" not in header and "α history" not in header and "yield" not in header
        assert all(cell_len(line) <= 80 for line in shown_lines)
        body = shown_lines[3:9]
        # one line per instance (nothing wrapped onto the next), the long one cut at its start
        assert [line[4:18].rstrip() for line in body[:5]] == [f"127.0.0.1:800{i}" for i in range(5)]
        assert body[5][4:6] == "…" + body[5][5] and "example:9999" in body[5]
        assert re.search(r"down since \d\d:\d\d:\d\d", body[4])
        await pilot.press("end", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InstanceScreen))
        await wait_until(pilot, lambda: "yield 0.167" in screen_text(app))  # the new screen drawn
        rest = screen_text(app)
        assert "yield 0.167" in rest and "γ 3" in rest  # what the table had no room for
        assert all(cell_len(line) <= 80 for line in rest.splitlines())
        assert screen is app.screen_stack[0]


@pytest.mark.parametrize("lang", LANGS)
async def test_every_fleet_view_shows_only_catalog_texts_and_data(lang: str, llama_like: HostileServer) -> None:
    app, _ = fleet_app(five(), lang=lang, server=llama_like)
    found: dict[str, set[str]] = {}
    async with app.run_test(size=(130, 30)) as pilot:
        await shown(pilot)
        found["fleet"] = strays(app, lang, DATA)
        await pilot.press("slash", *"800(", "enter")  # the refused filter's notice too
        await pilot.pause()
        found["refused filter"] = strays(app, lang, DATA)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        found["help"] = strays(app, lang, DATA)
        await wait_until(pilot, lambda: text("keys.fleetscreen.sort.tip", lang) in screen_text(app))  # keys in help
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen))
        await pilot.press("enter")  # the single-server watch, its requests pane included
        await wait_until(pilot, lambda: isinstance(app.screen, FleetWatchScreen) and app.screen.samples_shown >= 1)
        await pilot.pause()
        await wait_until(pilot, lambda: text("watch.requests.llama_no_drafts", lang)[:12] in screen_text(app))
        found["server watch"] = strays(app, lang, DATA | {"MTP", "b", "test"})  # the build (b1-test), the method
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen))
        await pilot.press("down", "down", "down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InstanceScreen))
        await pilot.pause()
        found["instance"] = strays(app, lang, DATA)
        await wait_until(pilot, lambda: text("fleetscreen.outlier", lang)[:8] in screen_text(app))
    assert {name: sorted(w) for name, w in found.items() if w} == {}
    if lang == "zh":
        assert text("fleetscreen.col.instance", "zh") != text("fleetscreen.col.instance", "en")
