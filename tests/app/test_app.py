"""The live screen driven for real under run_test()."""

from __future__ import annotations

from textual.geometry import Size

from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.replay import ReplayOptions
from specview.features.live.inspector import describe
from specview.features.live.preset_screen import PresetScreen
from specview.kernel.events import TokenStatus
from specview.tui.help_screen import HelpScreen
from specview.widgets.gauge_strip import GaugeStrip
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.status_line import StatusLine
from specview.widgets.token_info import TokenInfo
from tests.support.app_helpers import sim_app, still, token_view, wait_finished, wait_until


async def test_starts_and_streams() -> None:
    app = sim_app(speed=20.0)
    async with app.run_test(size=(120, 36)) as pilot:
        view = token_view(app)
        await wait_until(pilot, lambda: view.token_count > 50)
        # numbers are redrawn a few times a second (the first ones at once)
        await wait_until(pilot, lambda: app.live.query_one("#g-alpha", StatGauge).value != "—", timeout=2)
        assert "qwen3.6-mtp" in app.live.query_one(StatusLine).what
        assert app.live.session.metrics.rounds > 0


async def test_pause_step_and_restart_change_what_is_shown() -> None:
    app = sim_app(speed=50.0)
    async with app.run_test(size=(120, 36)) as pilot:
        view = token_view(app)
        await wait_until(pilot, lambda: view.token_count > 20)
        await pilot.press("space")
        assert app.live.session.paused
        # the round in flight lands, then the producer parks at the pause gate: a run that kept
        # producing would never get there
        await wait_until(pilot, lambda: still(app))
        settled = app.live.session.metrics.rounds
        assert settled == app.live.session.produced
        await pilot.press("n")
        await wait_until(pilot, lambda: app.live.session.metrics.rounds == settled + 1)
        await wait_until(pilot, lambda: still(app))  # parked again, after exactly one round
        assert app.live.session.metrics.rounds == settled + 1
        assert "paused" in app.live.query_one(StatusLine).state
        before = view.plain_text()
        await pilot.press("r")
        # Restart keeps the pause: nothing until resumed, and the view was cleared.
        assert view.token_count == 0
        await pilot.press("space")
        await wait_until(pilot, lambda: len(view.plain_text()) >= 40)
        assert before.startswith(view.plain_text()[:40]), "same seed should replay the same text"


async def test_preset_switch() -> None:
    app = sim_app(speed=50.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: token_view(app).token_count > 0)  # the live view is up
        await pilot.press("p")
        assert isinstance(app.screen, PresetScreen)
        picker = app.screen
        target = list(picker.presets).index("glm-5.2-mtp")
        current = list(picker.presets).index("qwen3.6-mtp")
        for _ in range(abs(target - current)):
            await pilot.press("down" if target > current else "up")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.live.backend.info.preset == "glm-5.2-mtp")
        assert "γ 7" in app.live.query_one(StatusLine).what
        await wait_until(pilot, lambda: token_view(app).token_count > 10)


async def test_select_a_token_shows_its_probabilities() -> None:
    app = sim_app(max_rounds=30)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        await pilot.press("left")
        info = str(app.live.query_one(TokenInfo).render())
        last = token_view(app).tokens[-1]  # the last round ends with its corrected or bonus token
        assert info == describe(last, "en")  # the preset samples at T = 1: not greedy
        assert last.p is not None and last.position is not None and f"position {last.position + 1}" in info
        if last.status is TokenStatus.CORRECTED:  # drawn from the residual: its own min(1, p/q) says nothing
            assert last.residual is not None and f"residual 1 − α {last.residual:.3f}" in info
            assert "min(1, p/q)" not in info
        else:
            assert f" · p {last.p:.3f}" in info and "drawn from p" in info
        await pilot.press("escape")
        assert token_view(app).selected is None


async def test_a_tiny_terminal_says_so_and_the_run_goes_on() -> None:
    app = sim_app(speed=50.0)
    async with app.run_test(size=(40, 12)) as pilot:
        await wait_until(pilot, lambda: token_view(app).token_count > 10)
        live = app.live
        assert live.has_class("-too-small")
        assert live.query_one("#too-small").styles.display == "block"
        assert live.query_one("#main").styles.display == "none"
        await pilot.press("f1")  # keys still work
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        drawn = live.drawn_rounds
        await pilot.resize_terminal(20, 6)
        await wait_until(pilot, lambda: live.size == Size(20, 6))  # laid out at 20 × 6
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: not live.has_class("-too-small") and live.has_class("-narrow"))
        await wait_until(pilot, lambda: "α" in live.query_one(GaugeStrip).render().plain)
        assert live.query_one("#side").styles.display == "none"
        assert live.drawn_rounds > drawn, "the run went on while the terminal was too small"
        await pilot.resize_terminal(120, 36)
        await wait_until(pilot, lambda: not live.has_class("-narrow"))
        assert live.query_one("#strip").styles.display == "none"


async def test_view_matches_the_session_exactly() -> None:
    app = sim_app(max_rounds=200, preset="eagle3")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_finished(pilot)
        view = token_view(app)
        snap = app.live.session.metrics.snapshot()
        shown = [t for t in view.tokens if t.emitted]
        assert len(shown) == snap.tokens
        assert app.live.query_one("#g-tau", StatGauge).value == f"{snap.window_tau:.2f}"


async def test_chinese_interface() -> None:
    app = sim_app(max_rounds=40, lang="zh")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        assert app.live.query_one("#g-alpha", StatGauge).label == "接受率 α"
        said = token_view(app).plain_text()  # the zh passage (a sampled run puts other words in some places)
        assert sum(word in said for word in ("灯塔", "黄昏", "楼梯", "大灯", "透镜", "本子", "礁石", "玻璃")) >= 5, said


async def test_adaptive_gamma_is_shown(tmp_path: object) -> None:
    """A run whose γ changes round to round (adaptive drafting) shows the current γ."""
    from pathlib import Path

    from specview.backends.factory import make_backend
    from specview.features.live.app import SpecviewApp
    from specview.features.record.recorder import Recorder, recording_header
    from specview.kernel.backend import BackendInfo
    from specview.kernel.events import Round, TokenEvent, TokenStatus
    from specview.kernel.runspec import RunSpec

    assert isinstance(tmp_path, Path)
    path = tmp_path / "adaptive.jsonl"
    info = BackendInfo(backend="llama", label="tiny · ngram · CPU", gamma=4, temperature=0.0)
    own = LlamaRunOptions(target="tiny.gguf", draft="ngram", adaptive=True)
    recorder = Recorder(path, recording_header(info, RunSpec(options=own)))
    accepted = TokenEvent(1, "a", TokenStatus.ACCEPTED, 0)
    for i, gamma in enumerate([4, 5, 6]):
        tokens = (*[accepted] * gamma, TokenEvent(2, "b", TokenStatus.BONUS, gamma))
        recorder(Round(i, gamma, tokens, 0.001, 0.01, 0.02 * (i + 1)))
    recorder.close()
    spec = RunSpec(speed=0.0, options=ReplayOptions(recording=str(path)))
    app = SpecviewApp(spec, make_backend(spec))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        assert "γ 4 → 6" in app.live.query_one(StatusLine).what


async def test_run_it_for_real_shows_the_engine_commands() -> None:
    from textual.widgets import Static

    from specview.features.live.real_run_screen import RealRunScreen

    app = sim_app(max_rounds=5)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        await pilot.press("x")
        assert isinstance(app.screen, RealRunScreen)
        shown = str(app.screen.query_one(Static).render())
        assert "vllm serve Qwen/Qwen3.6-27B" in shown and "--spec-type draft-mtp" in shown
        await pilot.press("c")
        assert app.clipboard.startswith("llama-server")
        await pilot.press("escape")
        assert not isinstance(app.screen, RealRunScreen)
