"""Replays and config problems in the live view: what a run shows, how it stops, what it reports."""

from __future__ import annotations

from pathlib import Path

from specview.backends.factory import make_backend
from specview.backends.replay import ReplayOptions, make_replay_backend
from specview.boundary.text import sanitize
from specview.features.live.app import SpecviewApp
from specview.features.record.recording import read_recording, scan_headers
from specview.kernel.events import Round
from specview.kernel.runspec import RunSpec
from specview.report.display_order import displayed
from specview.texts.catalog import Phrase, fill, text
from specview.tui.pump import RunState
from specview.widgets.status_line import StatusLine
from tests.support.app_helpers import token_view, wait_finished, wait_until
from tests.support.notices import notices
from tests.support.recordings import record_sim, recorded_rounds


async def test_replay_streams_the_recorded_tokens_in_the_live_view(tmp_path: Path) -> None:
    file = tmp_path / "live.jsonl"
    stats = record_sim(file, 80, seed=3)
    tokens = displayed(recorded_rounds(file))  # discarded drafts included
    spec = RunSpec(speed=0.0, options=ReplayOptions(recording=str(file)))
    app = SpecviewApp(spec, make_replay_backend(spec))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        view = token_view(app)
        assert view.token_count == len(tokens)
        assert view.plain_text() == sanitize(str(stats["text"]))
        assert app.live.session.metrics.rounds == 80
        assert app.live.query_one(StatusLine).what.startswith("replay · qwen3.6-mtp")


async def test_a_damaged_replay_shows_the_prefix_and_reports_the_line(tmp_path: Path) -> None:
    file = tmp_path / "damaged.jsonl"
    record_sim(file, 40)
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    file.write_text("".join(lines[:22]) + "{oops\n" + "".join(lines[23:]), encoding="utf-8")
    spec = RunSpec(speed=0.0, options=ReplayOptions(recording=str(file)))
    app = SpecviewApp(spec, make_replay_backend(spec))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        assert app.live.session.metrics.rounds == 20
        reason = app.live.session.drain(limit=0).error
        assert isinstance(reason, Phrase)  # put into words where it is shown, in that screen's language
        error = reason.render("en")
        assert "line 23" in error and str(file) in error
        # the status line says why the run stopped (drawn after the notification)
        await wait_until(pilot, lambda: app.live.query_one(StatusLine).state == RunState("stopped", error).text("en"))
        assert app.live.query_one(StatusLine).state.startswith(fill("state.stopped", reason=""))
        # the first error is shown once, as a notification and as the reason the run stopped
        assert [(n.title, n.message) for n in notices(app)] == [(text("notice.run_stopped"), error)]


async def test_a_run_that_cannot_record_stops_in_the_screens_language(tmp_path: Path) -> None:
    target = tmp_path / "no-such-folder" / "run.jsonl"
    for lang, said in (("zh", f"无法录制到 {target}：文件夹 {target.parent} 不存在"),
                       ("en", f"cannot record to {target}: the folder {target.parent} does not exist")):
        spec = RunSpec(preset="qwen3.6-mtp", seed=2, speed=0.0, max_rounds=5, lang=lang)
        app = SpecviewApp(spec, make_backend(spec), record=str(target), lang=lang)
        async with app.run_test(size=(120, 36)) as pilot:
            status = app.live.query_one(StatusLine)
            await wait_until(pilot, lambda: status.state == RunState("stopped", said).text(lang))  # noqa: B023
            await wait_until(pilot, lambda: len(notices(app)) > 0)  # noqa: B023
            assert [(n.title, n.message) for n in notices(app)] == [(text("notice.run_stopped", lang), said)]


async def test_restarting_the_live_view_appends_a_run_to_the_recording(tmp_path: Path) -> None:
    file = tmp_path / "restart.jsonl"
    spec = RunSpec(preset="qwen3.6-mtp", seed=2, speed=0.0, max_rounds=25)
    app = SpecviewApp(spec, make_backend(spec), record=str(file))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: app.live.session.metrics.rounds > 0)
        await wait_finished(pilot)
    headers = scan_headers(file)
    assert len(headers) == 2
    assert sum(isinstance(item, Round) for item in read_recording(file)) == 50


async def test_app_notifies_config_problems() -> None:
    spec = RunSpec(max_rounds=5, speed=0)
    app = SpecviewApp(spec, make_backend(spec), problems=("config.toml: key 'lang' must be …",))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: len(notices(app)) > 0)
        assert [(n.title, n.message) for n in notices(app)] == [
            ("", "config: 1 problem · specview config check shows it")]
