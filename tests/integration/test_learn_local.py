"""Learn screens on a real local model: `m` times k-token forwards through llama.cpp; the demo GGUF's size."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from specview.backends.local.demo import demo_model_path
from specview.backends.local.gguf_info import read_gguf_info
from specview.backends.local.run_options import LlamaRunOptions
from specview.features.learn.app import LearnApp
from specview.features.learn.explain.context import RunContext
from specview.features.learn.explain.roofline import VERIFY_KS, verify_cost_numbers
from specview.features.learn.registry import lesson_named
from specview.features.learn.verify_screen import VerifyScreen
from specview.features.live.app import SpecviewApp
from specview.kernel.theory import expected_tau
from tests.support.gguf_factory import write_tiny_llama


async def test_m_measures_the_verify_cost_curve_of_the_local_model(tmp_path: Path) -> None:
    path = write_tiny_llama(tmp_path / "tiny.gguf")
    app = LearnApp(lesson_named("verify"), run=RunContext(target_path=str(path), alpha=0.8, gamma=3, c=0.1))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, VerifyScreen)
        seconds = screen.measured
        assert seconds is not None and len(seconds) == len(VERIFY_KS) and min(seconds) > 0
        n = screen.numbers()
        assert n == verify_cost_numbers("h100-sxm", "dense-8b-bf16", 1, seconds, run=(0.8, 3, 0.1))
        assert n["measured_ratio"][0] == 1.0
        v = seconds[3] / seconds[0]  # γ 3 verifies 4 tokens
        assert n["run"]["speedup_measured_v"] == pytest.approx(expected_tau(0.8, 3) / (0.3 + v))
        assert f"{n['run']['speedup_measured_v']:.2f}×" in str(screen.query_one("#numbers", Static).render())
        assert "tiny.gguf" in str(screen.query_one("#measured", Static).render())
        assert len(screen.query_one("#chart").series) == 2  # type: ignore[attr-defined]


def test_the_demo_models_size_read_from_its_header() -> None:
    path = demo_model_path()
    info = read_gguf_info(path)
    assert info.architecture == "gemma3" and info.n_embd == 640 and info.nextn_layers == 0
    assert 250e6 < info.params < 300e6  # Gemma 3 270M
    assert info.weight_bytes < path.stat().st_size


def test_recomputed_rows_match_the_runs_own_p_and_q(tmp_path: Path) -> None:
    import threading

    from specview.backends.local.backend import LlamaBackend
    from specview.backends.local.options import LlamaOptions
    from specview.backends.local.token_rows import position_rows
    from specview.kernel.events import TokenStatus, only_rounds

    target = write_tiny_llama(tmp_path / "target.gguf", seed=0)
    draft = write_tiny_llama(tmp_path / "near.gguf", seed=0, noise=0.25)
    backend = LlamaBackend(target, LlamaOptions(draft=str(draft), prompt="the cat sat on the mat", temperature=0.8,
                                                seed=1, max_tokens=24, gamma=3, chat_template="none", n_threads=1))
    try:
        rounds = list(only_rounds(backend.rounds(threading.Event())))
        prompt = list(backend.prompt_tokens)
    finally:
        backend.close()
    committed = list(prompt)
    checked = 0
    for rnd in rounds:
        for token in rnd.tokens:
            if token.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED) and checked < 3:
                assert token.token_id is not None and token.p is not None and token.q is not None
                rows = position_rows(str(target), str(draft), committed, token.token_id, 0.8)
                assert rows.p[rows.chosen] == pytest.approx(token.p, rel=1e-3)
                assert rows.q[rows.chosen] == pytest.approx(token.q, rel=1e-3)
                assert sum(rows.p) == pytest.approx(1.0) and sum(rows.q) == pytest.approx(1.0)
                assert rows.alpha == pytest.approx(1 - rows.tv)
                checked += 1
            if token.emitted:
                committed.append(token.token_id)  # type: ignore[arg-type]
    assert checked == 3
    one_hot = position_rows(str(target), "ngram", prompt, 5, 0.0)
    assert one_hot.q[one_hot.chosen] == 1.0 and one_hot.alpha == pytest.approx(one_hot.p[one_hot.chosen])


def live_local_app(tmp_path: Path) -> SpecviewApp:
    """The live app on a tiny target with a noisy copy of it as the draft (sampling, γ 3)."""
    from specview.backends.factory import make_backend
    from specview.kernel.runspec import RunSpec

    target = write_tiny_llama(tmp_path / "target.gguf", seed=0)
    draft = write_tiny_llama(tmp_path / "near.gguf", seed=0, noise=0.25)
    spec = RunSpec(prompt="the cat sat on the mat", temperature=0.8, seed=1, max_tokens=20, gamma=3,
                   options=LlamaRunOptions(target=str(target), draft=str(draft)))
    return SpecviewApp(spec, make_backend(spec))


async def test_i_opens_a_live_local_token_with_its_real_rows(tmp_path: Path) -> None:
    from specview.features.learn.lossless_screen import LosslessScreen
    from specview.kernel.events import TokenStatus
    from specview.widgets.token_view import TokenView
    from tests.support.app_helpers import wait_finished, wait_until

    app = live_local_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        view = app.live.query_one(TokenView)
        for _ in range(view.token_count):
            await pilot.press("left")
            if view.selected is not None and view.tokens[view.selected].status is TokenStatus.ACCEPTED:
                break
        token = view.tokens[view.selected]  # type: ignore[index]
        assert token.status is TokenStatus.ACCEPTED
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, LosslessScreen), timeout=60)
        screen = app.screen
        assert isinstance(screen, LosslessScreen) and screen.rows is not None
        assert screen.rows.p[screen.rows.chosen] == pytest.approx(token.p, rel=1e-3)
        assert screen.rows.q[screen.rows.chosen] == pytest.approx(token.q, rel=1e-3)
        n = screen.numbers()
        assert n["p"] == list(screen.rows.p) and n["closeness"] is None
        assert f"{screen.rows.alpha:.3f}" in screen.query_one(".learn-legend").render().plain  # type: ignore[attr-defined]


async def test_the_live_runs_own_verify_costs_reach_learn_2_and_10(tmp_path: Path) -> None:
    """The local run's calibration (k-token forwards at its live context) is the measured curve on
    screen 2 and the v that screen 10's `f` takes: one measurement, not a second guess."""
    from tests.support.app_helpers import wait_finished
    from tests.support.steady_calibration import keep_a_calibration

    app = live_local_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        keep_a_calibration(app.live.session)  # a second test worker can make every calibration disagree
        cal = app.live.session.metrics.snapshot().calibration
        assert cal is not None and cal.basis == "measured" and len(cal.verify_costs_s) >= 4
        run = app.live.learn_context()
        assert run.verify_costs_s == cal.verify_costs_s
        assert run.verify_ratio == pytest.approx(cal.verify_costs_s[3] / cal.verify_costs_s[0])  # γ 3: 4 tokens
        app.push_screen(lesson_named("verify").make_screen("en", run))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, VerifyScreen) and screen.measured == list(cal.verify_costs_s[: len(VERIFY_KS)])
        assert screen.numbers()["run"]["verify_ratio"] == pytest.approx(run.verify_ratio)
        assert "live run" in str(screen.query_one("#measured", Static).render())


async def test_the_live_runs_last_round_reaches_learn_5_and_6_with_its_own_p_q_and_u(tmp_path: Path) -> None:
    """A local run (sampling, a noisy draft) hands its last round to screen 5 as the first source, its
    p, q and draws u shown as they were; screen 6 names the round's last judged draft."""
    from specview.features.learn.explain.rounds import keep_probability
    from specview.features.learn.lossless_screen import LosslessScreen
    from specview.features.learn.round_screen import LIVE, RoundScreen
    from specview.kernel.events import TokenStatus
    from specview.widgets.grid import Grid
    from specview.widgets.prose import Prose
    from tests.support.app_helpers import wait_finished

    app = live_local_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        run = app.live.learn_context()
        assert run.origin == "measured"  # a local run's numbers are this machine's: the gauges' word
        last = run.last_round
        assert last is not None and last.drafted
        judged = [t for t in last.tokens if t.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED)]
        app.push_screen(lesson_named("round").make_screen("en", run))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RoundScreen) and screen.source == LIVE
        assert "measured" in screen.query_one("#source", Prose).text
        for _ in range(2):  # to step 3: the draws and the verdicts
            await pilot.press("n")
        drafts = screen.numbers()["drafts"]
        grid = str(screen.query_one(Grid).render())
        for shown, token in zip(drafts, judged, strict=False):
            assert (shown["p"], shown["q"], shown["u"]) == (token.p, token.q, token.u)
            assert shown["keep"] == keep_probability(token.p, token.q)
            assert f"{token.p:.3f}" in grid and f"{token.q:.3f}" in grid
            if token.p < token.q:  # judged by its draw: the run's own u is on screen
                assert token.u is not None and f"{token.u:.3f}" in grid
        await pilot.press("escape")
        app.push_screen(lesson_named("lossless").make_screen("en", run))
        await pilot.pause()
        six = app.screen
        assert isinstance(six, LosslessScreen)
        said = " ".join(p.text for p in six.query(Prose)).replace("\u00a0", " ")
        assert f"p(x) = {judged[-1].p:.3f}" in said and f"q(x) = {judged[-1].q:.3f}" in said
