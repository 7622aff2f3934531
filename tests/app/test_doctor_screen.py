"""The doctor screen, driven by a pilot: `d` from the watch (a real HTTP server on 127.0.0.1 serving
llama-server's endpoints, its counters moving between polls) and from the fleet's instance view
(fixed fleet snapshots); the findings in en and zh; `esc` goes back; nothing asked of the server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from specview.features.doctor.screen import DoctorScreen
from specview.features.watch.app import WatchApp
from specview.features.watch.screen import WatchScreen
from specview.features.watch.screen.fleet_instance import InstanceScreen
from specview.features.watch.source import ServerWatch
from specview.kernel.langs import LANGS
from specview.texts.catalog import Phrase, fill, text
from tests.app.test_fleet_screen import fleet_app, shown
from tests.support.app_helpers import wait_until
from tests.support.catalog_walk import screen_text
from tests.support.fleet_snapshots import five
from tests.support.hostile_server import HostileServer, Scenario, hostile_server


def metrics(drafts: int, drafted: int, accepted: int) -> bytes:
    return ("# TYPE llamacpp:spec_decode_num_drafts counter\n"
            f"llamacpp:spec_decode_num_drafts_total {drafts}\n"
            f"llamacpp:spec_decode_num_draft_tokens_total {drafted}\n"
            f"llamacpp:spec_decode_num_accepted_tokens_total {accepted}\n").encode()


@pytest.fixture
def llama_like() -> Iterator[HostileServer]:
    """llama-server's /props (a draft-mtp drafter), /slots and /metrics, on a real HTTP server."""
    props = {"build_info": "b1-test", "default_generation_settings": {"params": {"speculative.types": "draft-mtp"}}}
    with hostile_server() as server:
        server.scenario = Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                                   get={"/props": (200, "application/json", json.dumps(props).encode()),
                                        "/slots": (200, "application/json", b"[]"),
                                        "/metrics": (200, "text/plain; version=0.0.4", metrics(20, 40, 25))})
        yield server


def words(app: object) -> str:
    screen = getattr(app, "screen", None)
    assert isinstance(screen, DoctorScreen)
    return "\n".join(screen.shown)


@pytest.mark.parametrize("lang", LANGS)
async def test_d_on_the_watch_shows_doctors_findings_from_its_own_polls(llama_like: HostileServer, lang: str) -> None:
    app = WatchApp(ServerWatch(llama_like.root), 0.05, lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        watch = app.screen
        assert isinstance(watch, WatchScreen)
        await wait_until(pilot, lambda: watch.samples_shown >= 1)
        llama_like.scenario.get["/metrics"] = (200, "text/plain", metrics(60, 120, 85))  # 40 drafts, 60 accepted
        await wait_until(pilot, lambda: watch.model.totals().drafts == 40)
        watch.poller.pause()  # from here on, only the doctor screen could ask the server anything
        await wait_until(pilot, lambda: watch.poller.in_flight_since is None)
        asked = len(llama_like.requests)
        key = f"d {text('keys.watch.doctor.label', lang)}"  # in the footer, as other keys (drawn when it recomposes)
        await wait_until(pilot, lambda: key in screen_text(app))
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DoctorScreen) and app.screen.shown)
        said = words(app)
        method = watch.source.facts.method
        assert method is not None and "draft-mtp" in method
        assert Phrase("doctor.finding.on", method=method, gamma="—").render(lang) in said
        assert fill("doctor.severity.ok", lang) in said
        await wait_until(pilot, lambda: "✓" in screen_text(app))  # `shown` is set before the screen draws it
        assert "alpha = 0.75" in said and "drafted = 80" in said  # 60 accepted of 80 drafted in the window
        assert fill("doctor.level.high", lang) in said
        await wait_until(pilot, lambda: text("doctor.screen.title", lang) in screen_text(app))
        assert len(llama_like.requests) == asked  # the screen read the watch's readings, asked nothing
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is watch)


@pytest.mark.parametrize("lang", LANGS)
async def test_d_on_the_fleets_instance_view_shows_its_findings_and_esc_comes_back(lang: str) -> None:
    app, _ = fleet_app(five(), lang)
    async with app.run_test(size=(130, 40)) as pilot:
        await shown(pilot)
        await pilot.press("down", "down", "down", "enter")  # 8003: a vLLM with eagle3, γ 5, nothing accepted
        await wait_until(pilot, lambda: isinstance(app.screen, InstanceScreen))
        instance = app.screen
        key = f"d {text('keys.fleetscreen.doctor.label', lang)}"  # the new screen's footer, once it has drawn
        await wait_until(pilot, lambda: key in screen_text(app))
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DoctorScreen) and app.screen.shown)
        said = words(app)
        assert Phrase("doctor.finding.on", method="eagle3", gamma=5).render(lang) in said
        assert fill("doctor.severity.warn", lang) in said
        await wait_until(pilot, lambda: "▲" in screen_text(app))  # `shown` is set before the screen draws it
        assert "http://127.0.0.1:8003" in said and "vllm" in said
        assert "alpha = 0" in said
        # "does it pay" is theory here (the screen sends nothing): said, with the command that measures it
        assert fill("doctor.screen.theory", lang, url="http://127.0.0.1:8003") in said and "--off" in said
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is instance)


async def test_chinese_findings_wrap_between_characters_not_only_at_spaces() -> None:
    """At 100 columns the zh theory line runs on after "c" (a Static broke only at spaces, so the sentence
    after it moved to the next line whole and left the line half empty)."""
    app, _ = fleet_app(five(), "zh")
    async with app.run_test(size=(100, 40)) as pilot:
        await shown(pilot)
        await pilot.press("down", "down", "down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InstanceScreen))
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DoctorScreen) and "草稿成本 c" in screen_text(app))
        lines = screen_text(app).splitlines()
        theory = next(line for line in lines if "草稿成本 c" in line)
        assert "草稿成本 c 下的理论值" in theory, lines
