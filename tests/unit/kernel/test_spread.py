"""A baseline with its spread: known inputs give known standard errors, the speedup's spread is
the baseline's and the run's combined, a plain run is 1× by definition, and every view shows "±"."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.replay import ReplayBackend
from specview.boundary.bounds import Invalid
from specview.features.record.recorder import recording_header
from specview.kernel.backend import BackendInfo
from specview.kernel.events import Basis, Calibration, Round, TokenEvent, TokenStatus
from specview.kernel.gauges import GAUGES, Reading
from specview.kernel.metrics import Metrics
from specview.kernel.overlay import overlay, plain_run
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.kernel.spread import BATCH_ROUNDS, CalibrationSpreads, Moments, RateBatches, combined, reciprocal_spread
from specview.kernel.verdict import RULE
from specview.report.run_json import stats_dict
from specview.texts.catalog import fill
from specview.tui.gauges import note_text, origin_text, pane_texts, panel_texts, summary_texts

SPEEDUP = next(spec for spec in GAUGES if spec.key == "speedup")
A, R, C, P = TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.PLAIN


def spec_round(index: int, t_wall: float, accepted: int) -> Round:
    tokens = tuple(TokenEvent(i, "x", s, i) for i, s in enumerate([A] * accepted + [R, C]))
    return Round(index, 3, tokens, 0.003, 0.02, t_wall)


def plain_round(index: int, t_wall: float) -> Round:
    return Round(index, 0, (TokenEvent(index, "x", P),), None, 0.02, t_wall)


def test_moments_give_the_sample_variance_and_the_standard_error_of_the_mean() -> None:
    m = Moments()
    for x in (2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0):
        m.add(x)
    assert m.mean == pytest.approx(5.0)
    assert m.variance == pytest.approx(32 / 7)
    assert m.standard_error == pytest.approx(math.sqrt(32 / 7 / 8))
    one = Moments()
    one.add(3.0)
    assert one.variance is None and one.standard_error is None


def test_a_cost_spread_is_the_calibrations_scatter_with_the_repeats_as_a_floor() -> None:
    spreads = CalibrationSpreads()
    # one calibration: only its repeats tell: sd / √3
    spreads.add(0.010, (0.009, 0.010, 0.011), (0.010, 0.020), ((0.010, 0.010, 0.010), (0.019, 0.020, 0.021)))
    one = spreads.snapshot()
    assert one is not None and one.calibrations == 1 and one.repeats == 3
    assert one.plain_s == pytest.approx(0.001 / math.sqrt(3))
    assert one.verify_costs_s == pytest.approx((0.0, 0.001 / math.sqrt(3)))
    # a second calibration 4 ms slower (the machine got busy): the scatter of the medians dominates
    spreads.add(0.014, (0.013, 0.014, 0.015), (0.012, 0.024), ((0.012, 0.012, 0.012), (0.023, 0.024, 0.025)))
    two = spreads.snapshot()
    assert two is not None and two.calibrations == 2 and two.repeats == 6
    assert two.plain_s == pytest.approx(statistics.stdev([0.010, 0.014]) / math.sqrt(2))  # 0.002
    assert two.verify_costs_s[1] == pytest.approx(statistics.stdev([0.020, 0.024]) / math.sqrt(2))
    # two medians that agree by luck fall back on the repeats' spread, never on zero
    lucky = CalibrationSpreads()
    for _ in range(2):
        lucky.add(0.010, (0.008, 0.010, 0.012), (), ())
    floor = lucky.snapshot()
    assert floor is not None and floor.plain_s == pytest.approx(math.sqrt(2 * 0.002**2 * 2 / 4 / 6))
    # a calibration without repeats (assumed, given, or recorded before they were kept) has none
    assert CalibrationSpreads().snapshot() is None


def test_the_rate_spread_is_the_ratio_estimators_over_batches_of_rounds() -> None:
    batches = RateBatches(size=2)
    batches.start(0.0)
    # rounds of one token: batch 1 takes 1 s, batch 2 takes 3 s, batch 3 (open) 2 s for one round
    for t in (0.5, 1.0, 2.5, 4.0, 6.0):
        batches.add(t, 1)
    xs, ys = [1.0, 3.0, 2.0], [2.0, 2.0, 1.0]
    rate = sum(ys) / sum(xs)
    expected = math.sqrt(sum((y - rate * x) ** 2 for x, y in zip(xs, ys, strict=True)) / (3 * 2)) / (sum(xs) / 3)
    assert batches.standard_error(6.0) == pytest.approx(expected)
    assert batches.batches == 2
    one = RateBatches(size=2)
    one.start(0.0)
    one.add(1.0, 3)
    assert one.standard_error(1.0) is None  # a single batch has no spread


def test_relative_errors_of_a_product_add_in_quadrature() -> None:
    # speedup 2.0 from 100 ± 5 tok/s (5 %) × 0.02 ± 0.0004 s per plain token (2 %)
    assert combined(2.0, (100.0, 5.0), (0.02, 0.0004)) == pytest.approx(2.0 * math.sqrt(0.05**2 + 0.02**2))
    assert combined(2.0, (100.0, 5.0), (0.02, 0.0)) == pytest.approx(0.1)  # an assumed baseline adds nothing
    assert combined(2.0, (100.0, 5.0), (0.02, None)) is None  # a given baseline's spread is unknown
    assert reciprocal_spread(0.02, 0.0004) == pytest.approx(1.0)  # 50 tok/s ± 2 %


def _run_items(rounds: int = 64, *, plain: bool = False) -> list[Calibration | Round]:
    """A local-like run: two calibrations with repeats, rounds alternating in duration."""
    first = ((0.010, 0.011, 0.012), (0.02, 0.02, 0.02), (0.03, 0.03, 0.03), (0.039, 0.04, 0.041))
    later = ((0.012, 0.013, 0.014), (0.02, 0.021, 0.022), (0.03, 0.031, 0.032), (0.04, 0.042, 0.044))
    items: list[Calibration | Round] = [Calibration.timed((0.010, 0.011, 0.012), first, context=10)]
    t = 1.0
    for i in range(rounds):
        t += 0.011 if i % 2 else 0.013
        items.append(plain_round(i, t) if plain else spec_round(i, t, accepted=1 + i % 3))
        if i == rounds // 2:
            items.append(Calibration.timed((0.012, 0.013, 0.014), later, context=40))
    return items


def _measured_run(rounds: int = 64, *, plain: bool = False) -> Metrics:
    m = Metrics()
    for item in _run_items(rounds, plain=plain):
        m.add(item)
    return m


def test_the_speedup_spread_combines_the_baselines_and_the_runs() -> None:
    snap = _measured_run().snapshot()
    over = overlay(snap)
    cal, spread = snap.calibration, snap.calibration_spread
    assert cal is not None and spread is not None and spread.plain_s is not None
    assert cal.plain_s == pytest.approx(0.012)  # the mean of the medians 0.011 and 0.013
    assert spread.plain_s == pytest.approx(0.001)  # sd(0.011, 0.013) / √2
    rate, rate_spread = snap.tokens_per_second, snap.tokens_per_second_spread
    assert rate is not None and rate_spread is not None and snap.rate_batches == 64 // BATCH_ROUNDS
    assert over.speedup_measured == pytest.approx(rate * 0.012)
    assert over.speedup_spread == pytest.approx(rate * 0.012 * math.hypot(rate_spread / rate, 0.001 / 0.012))
    assert over.plain_tokens_per_second_spread == pytest.approx(0.001 / 0.012**2)
    # v(3) = cost(4) / cost(1) with both costs' spreads
    v = over.verify_ratio
    assert v is not None and over.verify_ratio_spread is not None
    c1, c4 = spread.verify_costs_s[0], spread.verify_costs_s[3]
    assert c1 is not None and c4 is not None
    assert over.verify_ratio_spread == pytest.approx(v * math.hypot(c4 / cal.verify_costs_s[3],
                                                                    c1 / cal.verify_costs_s[0]))


def test_a_calibration_keeps_its_repeats_and_old_ones_read_as_no_spread() -> None:
    cal = Calibration.timed((0.012, 0.010, 0.011), ((0.010, 0.012, 0.011),), context=5)
    assert cal.plain_s == 0.011 and cal.verify_costs_s == (0.011,)
    assert Calibration.from_dict(cal.to_dict()) == cal
    old = {"basis": "measured", "plain_s": 0.011, "verify_costs_s": [0.011], "context": 5}  # before samples
    read = Calibration.from_dict(old)
    assert read.plain_samples_s == () and read.verify_samples_s == ()
    m = Metrics()
    m.add(read)
    assert m.snapshot().calibration_spread is None and overlay(m.snapshot()).speedup_spread is None
    with pytest.raises(Invalid, match="verify_samples_s"):
        Calibration.from_dict({**old, "verify_samples_s": [[0.01], [0.02]]})
    with pytest.raises(Invalid, match=r"plain_samples_s\[1\]"):
        Calibration.from_dict({**old, "plain_samples_s": [0.01, -1.0]})
    with pytest.raises(Invalid, match="at most 64"):
        Calibration.from_dict({**old, "plain_samples_s": [0.01] * 65})


def _info(gamma: int | None) -> BackendInfo:
    return BackendInfo("llama", "gemma", gamma, 0.0, model="gemma.gguf")


def test_a_plain_run_is_one_by_definition_never_a_ratio_of_the_same_thing() -> None:
    snap = _measured_run(plain=True).snapshot()
    assert plain_run(None, snap)
    ratio = overlay(snap)  # what the old rule said: the run's tokens/s ÷ its own calibrated step
    assert ratio.speedup_measured is not None and ratio.speedup_measured != pytest.approx(1.0)
    reading = Reading.of(snap, _info(None))
    assert reading.over.speedup_measured == 1.0 and reading.over.speedup_basis is Basis.DEFINITION
    assert reading.over.speedup_spread is None
    assert SPEEDUP.formatted(reading, windowed=False) == "1.00×"
    # the note puts the run's tokens/s and the calibrated ones side by side, each with its spread
    note = note_text(SPEEDUP, reading, "en")
    assert note.startswith("plain run: 1× by definition")
    assert note.count("±") == 2 and f"{snap.tokens_per_second:.1f} ±" in note
    assert "1×" in note_text(SPEEDUP, reading, "zh") and "1×" in origin_text(reading, "en")
    stats = stats_dict(_info(None), snap, "")
    assert stats["speedup"] == 1.0 and stats["provenance"]["speedup_basis"] == "definition"
    assert stats["spread"]["speedup"] is None and stats["spread"]["plain_tokens_per_second"] > 0
    assert stats["speedup_verdict"] is None  # 1× by definition: nothing to judge
    # the same rounds from a backend that names a γ (n-gram that never matched), or a remote run with a
    # given baseline, are not plain by construction: their speedup stays a measured ratio
    assert not plain_run(4, snap)
    given = Metrics()
    given.add(Calibration("given", 0.02))
    for i in range(20):
        given.add(plain_round(i, 1.0 + 0.01 * i))
    assert not plain_run(None, given.snapshot())


def test_the_gauge_table_shows_the_speedup_with_its_spread_in_every_whole_run_view() -> None:
    snap = _measured_run().snapshot()
    reading = Reading.of(snap, _info(3))
    over = reading.over
    assert over.speedup_measured is not None and over.speedup_spread is not None
    value = f"{over.speedup_measured:.2f}× ± {over.speedup_spread:.2f}"
    assert SPEEDUP.formatted(reading, windowed=False) == value
    panel = {g.key: g for g in panel_texts(reading, "en")}
    assert panel["speedup"].value == value
    assert "±" in panel["verify_ratio"].value
    # the baseline in the note carries its spread too
    plain = over.plain_tokens_per_second
    assert plain is not None and over.plain_tokens_per_second_spread is not None
    assert panel["speedup"].note.startswith(fill("basis.measured", "en", plain=(
        f"{plain:.1f} ± {over.plain_tokens_per_second_spread:.1f}")))
    summary = summary_texts(["run"], [reading], "en")
    assert value in summary.cells[0]
    # a pane's one line has no room for it
    assert all("±" not in v for _, v in pane_texts(reading, "en"))
    stats = stats_dict(_info(3), snap, "")
    assert stats["speedup"] == pytest.approx(over.speedup_measured, abs=1e-4)  # still a number
    # the verdict the gauge shows is in the JSON too, with the interval it used
    verdict = over.speedup_verdict
    assert verdict is not None and stats["speedup_verdict"] == verdict.to_dict(rule=str(RULE))
    lo, hi = stats["speedup_verdict"]["a"]["interval"]
    assert lo == pytest.approx(over.speedup_measured - 2 * over.speedup_spread)
    assert (stats["speedup_verdict"]["outcome"] == "within_noise") == (lo <= 1.0 <= hi)
    assert stats["speedup_verdict"]["b"]["mean"] == 1.0 and stats["speedup_verdict"]["b"]["spread"] == 0.0
    assert stats["spread"]["kind"] == "standard_error"
    assert stats["spread"]["speedup"] == pytest.approx(over.speedup_spread, abs=1e-4)
    assert stats["spread"]["rate_batches"] == 64 // BATCH_ROUNDS and stats["spread"]["calibrations"] == 2
    assert len(stats["spread"]["verify_cost"]) == 4


def _replayed(path: Path) -> dict[str, Any]:
    backend = ReplayBackend(path, segment=1, speed=0.0)
    session = Session(backend)
    pieces = [rnd.text for rnd in session.run_headless()]
    return stats_dict(backend.recorded_info, session.metrics.snapshot(), "".join(pieces))


def test_a_recording_keeps_the_repeats_and_one_made_before_them_still_replays(tmp_path: Path) -> None:
    items = _run_items(plain=True)
    lines = [recording_header(_info(None), RunSpec(plain=True, options=LlamaRunOptions(target="gemma.gguf")))]
    lines += [{"type": "calibration" if isinstance(item, Calibration) else "round", **item.to_dict()}
              for item in items]
    new, old = tmp_path / "new.jsonl", tmp_path / "old.jsonl"
    new.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    stripped = [{k: v for k, v in line.items() if not k.endswith("_samples_s")} for line in lines]
    old.write_text("".join(json.dumps(line) + "\n" for line in stripped), encoding="utf-8")
    stats = _replayed(new)
    assert stats["speedup"] == 1.0 and stats["provenance"]["speedup_basis"] == "definition"
    spread = overlay(_measured_run(plain=True).snapshot()).plain_tokens_per_second_spread
    assert spread is not None and stats["spread"]["plain_tokens_per_second"] == pytest.approx(spread, abs=0.01)
    assert stats["spread"]["calibrations"] == 2 and stats["spread"]["plain_repeats"] == 6
    before = _replayed(old)  # a file written before the repeats were kept: the same numbers, no spread
    assert before["plain_tokens_per_second"] == stats["plain_tokens_per_second"]
    assert before["spread"]["plain_tokens_per_second"] is None and before["spread"]["calibrations"] == 0
