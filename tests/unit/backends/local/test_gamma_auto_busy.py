"""`--gamma auto` never chooses from a calibration taken while the machine was busy: it keeps γ and
the costs it had, says so, and the engine measures again soon, with the load read beside the timings."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from specview.backends.local import engine as engine_module
from specview.backends.local.engine import RETRY_AFTER, Engine
from specview.backends.local.gamma_auto import START_GAMMA, AutoGamma
from specview.kernel.calibration import Calibration
from specview.kernel.gamma_choice import Why
from specview.kernel.machine_load import Load
from specview.kernel.metrics import Metrics
from specview.report.run_json import gamma_auto_dict
from specview.report.sentences import choice_text

# a GPU-ish curve, three repeats each: v(k) a little above 1 (k = 1 … 9)
CLEAN = tuple((0.030 + 0.001 * k, 0.0305 + 0.001 * k, 0.031 + 0.001 * k) for k in range(1, 10))
# the same forwards with the 1-token one slowed by other work: v(k) ≈ 0.35, beyond noise
TAKEN = ((0.090, 0.091, 0.092), *CLEAN[1:])
PLAIN = (0.031, 0.032, 0.033)
TWO_ON_TWO = Load(2, 2)


def _paying() -> AutoGamma:
    """An auto γ that chose from a clean calibration and a few drafted rounds (c ≈ 0.03)."""
    auto = AutoGamma()
    auto.calibrated(Calibration.timed(PLAIN, CLEAN, context=40))
    for _ in range(24):
        auto.update(auto.value, auto.value - 1, draft_s=0.001 * auto.value)
    auto.take()
    return auto


def test_a_calibration_taken_on_a_busy_machine_changes_neither_gamma_nor_the_costs() -> None:
    auto = _paying()
    gamma, why, c = auto.value, auto.choice.why, auto.draft_cost()
    assert why is Why.PAYS and 0 < gamma < 8
    auto.calibrated(Calibration.timed(PLAIN, TAKEN, context=80, load=TWO_ON_TWO))
    # adopted, v ≈ 0.35 would make every γ pay more and c three times smaller: nothing moved
    assert (auto.value, auto.choice.why, auto.draft_cost()) == (gamma, why, c)
    said = auto.take()
    assert [choice.why for choice in said] == [Why.BUSY] and said[0].gamma == gamma and said[0].busy is not None
    assert said[0].to_dict()["why"] == "busy" and said[0].to_dict()["busy"] == {"id": "busy.verify_below_one"}
    # the kernel's decision holds the reason's id; `--json` adds its English words (report/run_json.py)
    metrics = Metrics()
    metrics.gamma_chosen(said[0])
    shown = gamma_auto_dict(metrics.snapshot())
    assert shown is not None and shown["chosen"]["busy"]["id"] == "busy.verify_below_one"
    assert shown["chosen"]["busy"]["text"].startswith("the machine was busy while the baseline was measured")
    assert f"kept γ {gamma}: the last calibration was taken while the machine was busy" in choice_text(said[0], "en")
    assert f"保持 γ {gamma}：上一次校准时机器正忙" in choice_text(said[0], "zh")
    # the next decision is said even though it did not change, so the note does not stay on "busy"
    for _ in range(auto.decide_every):
        auto.update(auto.value, auto.value - 1, draft_s=0.001 * auto.value)
    assert [choice.why for choice in auto.take()] == [Why.PAYS]


def test_a_first_calibration_taken_on_a_busy_machine_leaves_auto_learning() -> None:
    auto = AutoGamma()
    auto.calibrated(Calibration.timed(PLAIN, TAKEN, context=40, load=TWO_ON_TWO))
    assert auto.value == START_GAMMA and auto.choice.why is Why.LEARNING and auto.draft_cost() is None
    assert [choice.why for choice in auto.take()] == [Why.LEARNING, Why.BUSY]


def test_the_engine_reads_the_load_beside_its_timings_and_measures_again_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    timings = iter([TAKEN, CLEAN])
    monkeypatch.setattr(engine_module, "time_verify_costs", lambda *args, **kwargs: [list(k) for k in next(timings)])
    monkeypatch.setattr(engine_module, "time_plain_steps", lambda *args, **kwargs: list(PLAIN))
    target = SimpleNamespace(n_past=40, n_ctx=4096, n_batch=512)
    auto = AutoGamma()
    engine = Engine(target, None, [1, 2, 3], gamma=auto, temperature=0.0, max_tokens=100, seed=0)  # type: ignore[arg-type]
    loads = iter([Load(1, 2), TWO_ON_TWO])
    engine.load_source = lambda: next(loads)  # a fake busy machine: the same every run
    cal = engine.calibrate()
    assert cal.load == TWO_ON_TWO  # the busier of the readings before and after the timings
    assert [choice.why for choice in auto.take()] == [Why.LEARNING, Why.BUSY]
    assert not engine.calibration_due
    engine._rounds_since_calibration = RETRY_AFTER  # the rounds the engine counted since (no model to run them)
    assert engine.calibration_due  # soon, not after the usual 64 rounds
    engine.load_source = lambda: None  # a system that cannot say
    assert engine.calibrate().load is None
    engine._rounds_since_calibration = RETRY_AFTER
    assert not engine.calibration_due  # clean: back to the usual interval
