"""`--gamma auto`'s choice: the argmax of the expected speedup on known v(k), c and acceptance,
and the controller's life: learning, paying, off for good, off and probing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from specview.backends.local.gamma_auto import MIN_VERDICTS, PROBE_AFTER, PROBE_ROUNDS, AutoGamma
from specview.kernel.events import Basis, Calibration
from specview.kernel.gamma_choice import AUTO_MAX_GAMMA, Why, best_of, choose, expected_speedups
from specview.kernel.metrics import Metrics
from specview.kernel.theory import VerifyRatio, speedup, tau_from_positions, verify_ratio
from specview.report.run_json import gamma_auto_dict
from specview.report.sentences import choice_text


def _costs(per_token: float, fixed: float = 0.0) -> tuple[float, ...]:
    """k-token forward costs k = 1 … 9: `fixed` + `per_token` × k (a CPU: verify of k ≈ k forwards)."""
    return tuple(fixed + per_token * k for k in range(1, AUTO_MAX_GAMMA + 2))


def _v(costs: tuple[float, ...]) -> VerifyRatio:
    return lambda gamma: verify_ratio(costs, gamma)


def test_the_choice_is_the_argmax_of_tau_over_cost() -> None:
    costs = _costs(0.01, 0.03)  # v(γ) = (0.03 + 0.01(γ+1)) / 0.04: a GPU-ish curve
    acceptance = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
    c = 0.05
    choice = choose(acceptance, c, _v(costs))
    by_hand = [1.0] + [tau_from_positions(acceptance[:g]) / (g * c + verify_ratio(costs, g)) for g in range(1, 9)]
    assert choice.speedups == pytest.approx(tuple(by_hand))
    assert choice.gamma == max(range(9), key=lambda g: by_hand[g]) > 0
    assert choice.why is Why.PAYS
    assert choice.expected == pytest.approx(max(by_hand))


def test_constant_acceptance_matches_the_iid_formula() -> None:
    """One formula: per-position acceptance all α gives theory.speedup's Leviathan value."""
    costs = _costs(0.01, 0.02)
    speedups = expected_speedups([0.7], 0.1, _v(costs))
    for g in range(1, AUTO_MAX_GAMMA + 1):
        assert speedups[g] == pytest.approx(speedup(0.7, g, 0.1, verify_ratio(costs, g)))


def test_verify_of_k_costing_k_forwards_loses_at_every_gamma_even_at_acceptance_one() -> None:
    """The target drafting for itself on a CPU: c ≈ 1, v(γ) ≈ γ + 1 → γ 0, for good."""
    choice = choose([1.0], 1.0, _v(_costs(0.01)))
    assert choice.gamma == 0
    assert choice.why is Why.NEVER
    assert all(s < 1 for s in choice.speedups[1:])


def test_a_low_acceptance_loses_where_a_high_one_would_pay() -> None:
    costs = _costs(0.004, 0.02)
    assert choose([0.05], 0.02, _v(costs)).why is Why.LOSES
    assert choose([0.95], 0.02, _v(costs)).why is Why.PAYS


def test_a_gain_within_the_margin_is_not_taken_and_ties_go_to_the_smaller_gamma() -> None:
    assert best_of([1.0, 1.01, 1.015]) == 0
    assert best_of([1.0, 1.3, 1.3, 1.2]) == 1


def test_positions_not_measured_read_the_deepest_measured() -> None:
    choice = choose([0.9, 0.5], 0.0, _v(_costs(0.001, 0.02)))
    assert choice.acceptance == (0.9,) + (0.5,) * (AUTO_MAX_GAMMA - 1)


def test_the_search_ends_where_v_was_not_measured() -> None:
    costs = _costs(0.01, 0.05)[:4]  # k = 1 … 4 timed: γ up to 3
    assert len(expected_speedups([0.9], 0.0, _v(costs))) == 4


def _calibration(costs: tuple[float, ...]) -> Calibration:
    return Calibration(Basis.MEASURED, costs[0], costs)


def test_the_controller_turns_speculation_off_for_good_when_even_free_perfect_drafts_lose() -> None:
    auto = AutoGamma()
    auto.calibrated(_calibration(_costs(0.01)))  # v(γ) = γ + 1: nothing can pay
    assert auto.value == 0 and auto.choice.why is Why.NEVER
    for _ in range(4 * PROBE_AFTER):
        auto.update(0, 0)
    assert auto.value == 0  # no probe: the costs alone forbid drafting


def test_the_controller_learns_then_chooses_a_gamma_that_pays() -> None:
    auto = AutoGamma()
    auto.calibrated(_calibration(_costs(0.002, 0.02)))
    assert auto.choice.why is Why.LEARNING and auto.value > 0
    for _ in range(MIN_VERDICTS + 8):
        auto.update(auto.value, auto.value, draft_s=0.0001 * auto.value)  # every draft accepted, nearly free
    assert auto.choice.why is Why.PAYS
    assert auto.value == AUTO_MAX_GAMMA  # free drafts always accepted: the longest γ
    kinds = [c.why for c in auto.take()]
    assert kinds[0] is Why.LEARNING and kinds[-1] is Why.PAYS


def test_the_controller_goes_off_on_rejections_and_probes_again_later() -> None:
    auto = AutoGamma()
    auto.calibrated(_calibration(_costs(0.004, 0.02)))
    while auto.value:
        auto.update(auto.value, 0, draft_s=0.001)  # every first draft refused
    assert auto.choice.why is Why.LOSES
    for _ in range(PROBE_AFTER):
        auto.update(0, 0)
    assert auto.choice.why is Why.PROBE and auto.value > 0
    probe = auto.value
    for _ in range(PROBE_ROUNDS):
        auto.update(probe, probe, draft_s=0.001 * probe)  # the text changed: now everything is accepted
    assert auto.choice.why is Why.PAYS and auto.value > 0


def test_the_choices_reach_the_snapshot_bench_json_and_both_languages() -> None:
    metrics = Metrics()
    choice = choose([0.9], 0.01, _v(_costs(0.002, 0.02)), at_round=12)
    metrics.add(choice)
    snap = metrics.snapshot()
    assert snap.gamma_choice is choice
    out = gamma_auto_dict(snap)
    assert out is not None and out["chosen"]["gamma"] == choice.gamma and out["chosen"]["why"] == "pays"
    assert out["history"][0]["round"] == 12
    assert f"γ {choice.gamma}" in choice_text(choice, "en") and "×" in choice_text(choice, "zh")
    assert choice_text(choice, "zh") != choice_text(choice, "en")


def test_the_gauge_says_the_choice_and_what_it_beat() -> None:
    from specview.backends.factory import make_backend
    from specview.kernel.gauges import GAUGES, Reading
    from specview.kernel.runspec import RunSpec
    from specview.tui.gauges import note_text

    spec = next(g for g in GAUGES if g.key == "gamma_auto")
    metrics = Metrics()
    info = make_backend(RunSpec()).info
    assert spec.formatted(Reading.of(metrics.snapshot(), info), windowed=False) == "—"  # a fixed γ: no value
    choice = choose([0.9], 0.01, _v(_costs(0.002, 0.02)))
    metrics.add(choice)
    reading = Reading.of(metrics.snapshot(), info)
    assert spec.formatted(reading, windowed=False) == str(choice.gamma)
    (runner_up, s), _ = choice.runners_up()
    for lang in ("en", "zh"):
        note = note_text(spec, reading, lang)
        assert f"{choice.expected:.2f}" in note and f"γ {runner_up} {s:.2f}×" in note


def test_the_sweep_prints_the_auto_choice_next_to_the_measured_best() -> None:
    from specview.features.sweep.model import AutoPoint, GammaPoint, analyse_gamma
    from specview.features.sweep.render import gamma_text

    points = [GammaPoint(0, 64, 64, 10.0, 1.0, None, tokens_per_second_spread=0.3),
              GammaPoint(1, 64, 40, 14.0, 1.6, 0.6, tokens_per_second_spread=0.3),
              GammaPoint(2, 64, 30, 16.0, 2.1, 0.6, tokens_per_second_spread=0.3)]
    sweep = replace(analyse_gamma(points), auto=AutoPoint(2, "pays", 15.8, ((0, 3), (2, 27))))
    out = gamma_text(sweep, "en")
    assert "--gamma auto chose γ 2 (γ 2 pays" in out and "the measured best: γ 2, 16.0 tok/s" in out
    assert "15.8 tok/s" in out
    assert sweep.to_dict()["auto"] == {"gamma": 2, "why": "pays", "tokens_per_second": 15.8,
                                       "gamma_counts": [[0, 3], [2, 27]]}
    assert "--gamma auto 选了 γ 2\uff08" in gamma_text(sweep, "zh")
    # runs apart by less than their noise: no best to set beside auto's choice, the fastest named as such
    close = [replace(p, tokens_per_second_spread=2.0) for p in points]
    tie = replace(analyse_gamma(close), auto=AutoPoint(2, "pays", 15.8, ()))
    assert "no γ was faster beyond noise (the fastest run: γ 2, 16.0 tok/s)" in gamma_text(tie, "en")


def test_auto_learns_at_the_gamma_the_costs_favour_not_at_the_default_four() -> None:
    """This CPU's measured shape: an even-width verify is cheaper than the odd one below it
    (v(4) 2.4 < v(3) 3.3), so γ 7 (8 tokens) is the best a free, always accepted draft can do;
    auto learns there instead of at γ 4, one of the dear widths (the n-gram copy task was 0.88×
    the best fixed γ over 128 tokens, most of it lost in learning rounds at γ 4)."""
    shape = (1.0, 1.9, 3.3, 2.4, 3.7, 2.8, 4.0, 3.1, 4.6)  # k-token forward ÷ a 1-token one, k = 1 … 9
    costs = tuple(0.03 * r for r in shape)
    auto = AutoGamma()
    auto.calibrated(Calibration(Basis.MEASURED, costs[0], costs))
    ceiling = expected_speedups([1.0], 0.0, _v(costs))
    assert best_of(ceiling) == 7
    assert auto.choice.why is Why.LEARNING and auto.value == 7


def test_a_few_rounds_in_every_position_reads_the_pooled_acceptance() -> None:
    """Two fully accepted rounds at γ 7: each position alone would read (2 + ½) / 3 ≈ 0.83, which
    τ compounds into too short a γ; pooled, 14 of 14 read (14 + ½) / 15 at every position."""
    auto = AutoGamma()
    for _ in range(2):
        auto.update(7, 7)
    assert auto.acceptance() == pytest.approx([14.5 / 15] * 7)
    for _ in range(20):  # position 1 past POOL_UNTIL verdicts: each position on its own again
        auto.update(7, 3)
    got = auto.acceptance()
    assert got[0] == pytest.approx((22 + 0.5) / 23) and got[4] == pytest.approx((2 + 0.5) / 3)
