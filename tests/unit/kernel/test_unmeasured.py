"""kernel/unmeasured.py: what a remote server does not give is "—" with the reason, never 0 or an
assumed 1; a γ the server chose is reported as its own, with the one asked."""

from __future__ import annotations

import pytest

from specview.kernel.backend import BackendInfo, BackendKind, Exact, Note
from specview.kernel.events import Calibration, Round, TokenEvent, TokenStatus
from specview.kernel.gauges import BENCH, Reading, gauges
from specview.kernel.metrics import Metrics
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.kernel.unmeasured import GAMMA_SERVER, GAMMA_SHORTER, REMOTE_V, server_gamma, why_missing
from specview.report.run_json import stats_dict
from specview.tui.gauges import missing_texts, note_text, origin_text

A, R, C, B = TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS
REMOTE = BackendInfo(BackendKind.REMOTE, "llama-server", 4, 0.0, exact={Exact.ACCEPTANCE: True, Exact.TAU: True})
LOCAL = BackendInfo(BackendKind.LLAMA, "gemma", 3, 0.0, exact={Exact.DRAFT_COST: True})


def snapshot(*calibrations: Calibration, timed: bool = False) -> MetricsSnapshot:
    m = Metrics()
    for cal in calibrations:
        m.add(cal)
    for i in range(6):
        statuses = [A, A, A, B] if i % 2 else [A, R, C]
        tokens = tuple(TokenEvent(k, "x", s, k) for k, s in enumerate(statuses))
        m.add(Round(i, 3, tokens, 0.003 if timed else None, 0.02 if timed else None, 1.0 + 0.03 * i))
    return m.snapshot()


@pytest.mark.parametrize("calibrations", [(), (Calibration("given", 0.04),), (Calibration("paired", 0.04),)])
def test_a_remote_run_has_no_v_and_no_theory_and_says_why(calibrations: tuple[Calibration, ...]) -> None:
    snap = snapshot(*calibrations)
    reading = Reading.of(snap, REMOTE)
    assert reading.over.verify_ratio is None  # was 1.0: "assumed or given"
    assert reading.over.speedup_theory is None and snap.draft_cost is None
    assert set(why_missing(REMOTE, snap, reading.over)) == {"draft_cost", "verify_ratio", "verify_cost",
                                                             "speedup_theory", "best_gamma"}
    specs = {spec.key: spec for spec in gauges(BENCH)}
    assert specs["verify_ratio"].formatted(reading, windowed=False) == "—"
    assert note_text(specs["verify_ratio"], reading, "en") == "a remote server does not time its forwards"
    assert "needs c and v(k)" in note_text(specs["speedup"], reading, "en")
    assert missing_texts(reading, BENCH, "en") == ["c —: a remote server does not time its drafting",
                                                   "v —: a remote server does not time its forwards"]
    assert origin_text(reading, "en").endswith("c, v not given")
    assert origin_text(reading, "zh").endswith("无 c、v")
    stats = stats_dict(REMOTE, snap, "")
    assert stats["verify_ratio"] is None and stats["not_measured"]["verify_ratio"]["id"] == REMOTE_V


def test_runs_that_time_their_costs_give_c_and_v_and_no_reason() -> None:
    measured = snapshot(Calibration("measured", 0.01, (0.01, 0.012, 0.014, 0.016)), timed=True)
    local = Reading.of(measured, LOCAL)
    assert local.over.verify_ratio == pytest.approx(1.6) and local.missing == {}
    assert stats_dict(LOCAL, measured, "")["not_measured"] == {}
    # the simulator assumes a flat verify cost: v = 1, said as assumed, not a missing number
    sim_info = BackendInfo(BackendKind.SIM, "qwen", 3, 1.0, virtual_clock=True, exact={Exact.ACCEPTANCE: True})
    sim = Reading.of(snapshot(Calibration("assumed", 0.02, (0.02,) * 4), timed=True), sim_info)
    assert sim.over.verify_ratio == 1.0 and sim.missing == {}
    assert origin_text(sim, "en") == "simulated"


def test_a_gamma_the_server_chose_is_its_own_with_the_one_asked() -> None:
    base = BackendInfo(BackendKind.REMOTE, "llama-server", 3, 0.0, notes=(Note("llama_server"),))
    longer = server_gamma(base, 25, 3)
    assert (longer.gamma, longer.gamma_asked) == (25, 3)
    assert longer.notes[-1] == Note(GAMMA_SERVER, {"server": "25", "asked": "3"})
    again = server_gamma(longer, 26, 3)  # a later request: one note, the latest
    assert [n.id for n in again.notes] == ["llama_server", GAMMA_SERVER] and again.gamma == 26
    shorter = server_gamma(base, 2, 3)
    assert shorter.notes[-1].id == GAMMA_SHORTER and shorter.gamma_asked == 3
    unasked = server_gamma(BackendInfo(BackendKind.REMOTE, "x", None, 0.0), 8, None)
    assert (unasked.gamma, unasked.gamma_asked, unasked.notes) == (8, None, ())
    stats = stats_dict(longer, snapshot(), "")
    assert (stats["gamma"], stats["gamma_asked"]) == (25, 3)
    assert stats["gamma_note"]["text"] == "γ 25 (the server's; 3 was asked)"
    assert stats_dict(unasked, snapshot(), "")["gamma_note"] is None
