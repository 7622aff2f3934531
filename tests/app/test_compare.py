"""Compare screen: panes stream together, share pause/step, and the summary tells the truth."""

from __future__ import annotations

import pytest

from specview.backends.factory import make_backend
from specview.features.live.app import SpecviewApp
from specview.kernel.gauges import SUMMARY, Reading, gauges
from specview.kernel.overlay import overlay
from specview.kernel.runspec import RunSpec
from specview.kernel.theory import best_gamma, expected_tau, speedup
from specview.report.leaders import leaders
from specview.widgets.run_pane import RunPane
from specview.widgets.summary_table import SummaryTable
from tests.support.app_helpers import wait_until
from tests.support.compare_run import compare_app
from tests.support.compare_run import compare_finished as finished
from tests.support.compare_run import compare_screen as screen


async def test_both_panes_stream_and_pause_step_apply_to_both() -> None:
    app = compare_app("qwen3.6-mtp", "glm-5.2-mtp", speed=30.0)
    async with app.run_test(size=(140, 40)) as pilot:
        cmp = screen(app)
        panes = list(cmp.query(RunPane))
        assert len(panes) == 2
        await wait_until(pilot, lambda: all(p.view.token_count > 10 for p in panes))
        await pilot.press("space")
        assert all(s.paused for s in cmp.sessions)
        # both producers park at the pause gate once their round in flight is drawn: runs that kept
        # producing would never get there
        await wait_until(pilot, lambda: all(s.parked for s in cmp.sessions)
                         and cmp.drawn_rounds == [s.produced for s in cmp.sessions])
        before = [s.metrics.rounds for s in cmp.sessions]
        assert before == [s.produced for s in cmp.sessions]
        await pilot.press("n")
        await wait_until(pilot, lambda: [s.metrics.rounds for s in cmp.sessions] == [b + 1 for b in before])
        await pilot.press("l")
        assert cmp.query_one("#panes").has_class("-rows")
        await pilot.press("f")
        assert panes[0].display and not panes[1].display
        await pilot.press("f")
        assert panes[1].display


async def test_summary_numbers_equal_each_runs_metrics() -> None:
    app = compare_app("qwen3.6-mtp", "glm-5.2-mtp", "ngram", max_rounds=150)
    async with app.run_test(size=(140, 40)) as pilot:
        await finished(pilot)
        cmp = screen(app)
        cmp.refresh_summary()
        table = cmp.query_one(SummaryTable)
        columns = [spec.key for spec in gauges(SUMMARY)]
        alpha, tau = columns.index("alpha"), columns.index("tau")
        for i, session in enumerate(cmp.sessions):
            snap = session.metrics.snapshot()
            assert snap.rounds == 150
            assert table.cell(i, alpha).split()[0] == f"{snap.acceptance_rate:.3f}"
            assert table.cell(i, tau).split()[0] == f"{snap.tau:.2f}"
        readings = [Reading.of(s.metrics.snapshot(), b.info) for s, b in zip(cmp.sessions, cmp.backends, strict=True)]
        lead = leaders(readings)
        assert lead["tau"] == 1, "GLM's 7-step MTP has the longest rounds"
        assert table.cell(1, tau).endswith("▲")
        assert [table.cell(i, tau).endswith("▲") for i in range(3)] == [False, True, False]
        # the last column says where each run's numbers come from: simulated, and assumed where they are
        origin = len(columns)
        assert [table.cell(i, origin).strip() for i in range(3)] == ["simulated · assumed"] * 3


def test_theory_overlay_matches_core_theory() -> None:
    import threading

    from specview.kernel.metrics import Metrics

    backend = make_backend(RunSpec(preset="qwen3.6-mtp", seed=2, speed=0, max_rounds=3000))
    metrics = Metrics()
    for rnd in backend.rounds(threading.Event()):
        metrics.add(rnd)
    snap = metrics.snapshot()
    over = overlay(snap)
    assert snap.acceptance_rate is not None and snap.draft_cost is not None
    assert over.expected_tau == pytest.approx(expected_tau(snap.acceptance_rate, 3))
    assert over.tau_gap == pytest.approx(snap.tau - expected_tau(snap.acceptance_rate, 3))
    assert over.speedup_theory == pytest.approx(speedup(snap.acceptance_rate, 3, snap.draft_cost))
    assert (over.best_gamma, over.best_speedup) == (
        best_gamma(snap.acceptance_rate, snap.draft_cost)[0],
        pytest.approx(best_gamma(snap.acceptance_rate, snap.draft_cost)[1]),
    )
    # measured speedup: tokens/s × the assumed plain step = τ / (γc + 1) exactly on the simulator's clock
    from specview.catalog.presets import get_preset

    assert over.speedup_basis == "assumed"
    assert over.speedup_measured == pytest.approx(snap.tau / (3 * get_preset("qwen3.6-mtp").c + 1), rel=1e-6)


def test_compare_snapshot(snap_compare: object) -> None:
    assert callable(snap_compare)
    assert snap_compare(compare_app("qwen3.6-mtp", "glm-5.2-mtp", max_rounds=40), terminal_size=(130, 36),
                        run_before=finished)


async def test_compare_a_preset_with_a_replay(tmp_path: object) -> None:
    import subprocess
    import sys
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    rec = tmp_path / "glm.jsonl"
    subprocess.run([sys.executable, "-m", "specview", "bench", "--preset", "glm-5.2-mtp", "--seed", "5",
                    "--rounds", "60", "--record", str(rec), "--json"], check=True, capture_output=True)
    base = RunSpec(seed=5, speed=0.0, max_rounds=60)
    from specview.backends.selector import parse_selector

    specs = [parse_selector("glm-5.2-mtp", base), parse_selector(f"replay:{rec}", base)]
    backends = [make_backend(s) for s in specs]
    app = SpecviewApp(specs[0], backends[0], compare=backends)
    async with app.run_test(size=(140, 40)) as pilot:
        await finished(pilot)
        cmp = screen(app)
        live, replayed = (s.metrics.snapshot() for s in cmp.sessions)
        assert replayed.rounds == live.rounds == 60
        assert (replayed.tokens, replayed.accepted, replayed.tau) == (live.tokens, live.accepted, live.tau)
        panes = list(cmp.query(RunPane))
        assert panes[0].view.plain_text() == panes[1].view.plain_text()
        assert "replay" in cmp.labels[1]


async def test_each_pane_has_its_inspector_and_its_engine_commands() -> None:
    from specview.features.live.inspector import describe
    from specview.features.live.real_run_screen import RealRunScreen
    from specview.widgets.token_info import TokenInfo

    app = compare_app("qwen3.6-mtp", "glm-5.2-mtp", max_rounds=30)
    async with app.run_test(size=(140, 40)) as pilot:
        await finished(pilot)
        cmp = screen(app)
        panes = list(cmp.query(RunPane))
        await pilot.press("left")  # the last token of the focused (first) pane
        info = cmp.query_one(TokenInfo)
        assert str(info.render()) == describe(panes[0].view.tokens[-1])
        await pilot.press("x")
        assert isinstance(app.screen, RealRunScreen) and app.screen.preset.id == "qwen3.6-mtp"
        await pilot.press("escape")
        await pilot.press("tab")
        assert cmp.focused is panes[1].view
        await pilot.press("x")
        assert isinstance(app.screen, RealRunScreen) and app.screen.preset.id == "glm-5.2-mtp"
