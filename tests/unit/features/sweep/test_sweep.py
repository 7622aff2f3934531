"""features/sweep/model.py and its rendering: theory next to measurement, best γ, the crossover, the JSON shape."""

from __future__ import annotations

import json
import re

import pytest

from specview.features.sweep.model import GammaPoint, LoadPoint, LoadSweep, analyse_gamma, tau_if_gamma
from specview.features.sweep.render import bar, gamma_markdown, gamma_text, load_markdown, load_text
from specview.features.sweep.runner import IGNORED_GAMMA
from specview.kernel.theory import expected_tau, speedup


def point(gamma: int, tps: float, tau: float, alpha: float | None, curve: tuple[float, ...] = (),
          verify: float = 0.01, accepted: int = 0, verified: int = 0, spread: float | None = 0.5) -> GammaPoint:
    return GammaPoint(gamma, 100, round(100 / tau), tps, tau, alpha, curve, 0.02 if gamma else None, verify,
                      float(gamma) if gamma else None, accepted, verified, gamma, spread)


SWEEP = [point(0, 40.0, 1.0, None), point(1, 55.0, 1.8, 0.8, (0.8,), 0.012, 80, 100),
         point(2, 60.0, 2.4, 0.8, (0.8, 0.7), 0.014, 160, 200), point(3, 52.0, 2.7, 0.75, (0.8, 0.7, 0.6), 0.02,
                                                                      225, 300)]


def test_theory_uses_the_measured_alpha_c_and_verify_ratio() -> None:
    sweep = analyse_gamma(SWEEP)
    assert sweep.alpha == pytest.approx((80 + 160 + 225) / 600)
    assert sweep.c == pytest.approx(0.02)
    assert sweep.best_gamma == 2 and [r.best for r in sweep.rows] == [False, False, True, False]
    row = sweep.rows[2]
    assert row.verify_ratio == pytest.approx(1.4)
    assert row.predicted_speedup == pytest.approx(speedup(sweep.alpha, 2, 0.02, 1.4))
    assert row.predicted_tokens_per_second == pytest.approx(40.0 * row.predicted_speedup)
    assert row.speedup == pytest.approx(1.5)
    # τ if γ were γ′: from the deepest run's curve
    assert sweep.curve == (0.8, 0.7, 0.6)
    assert row.tau_from_curve == pytest.approx(1 + 0.8 + 0.8 * 0.7)
    assert tau_if_gamma(sweep.curve, 4) is None and tau_if_gamma((), 0) == 1.0


def test_the_star_goes_only_to_a_gamma_faster_than_every_other_beyond_noise() -> None:
    # the case: four runs of one configuration (a server that ignored γ), ~50 tok/s each
    same = [point(g, tps, 2.0, 0.8, spread=1.2) for g, tps in ((1, 50.9), (2, 49.6), (3, 50.2), (4, 49.9))]
    sweep = analyse_gamma(same)
    assert sweep.best_gamma is None and not any(r.best for r in sweep.rows)
    out = gamma_text(sweep, "en")
    assert "★" not in out.replace("no ★", "") and "no γ is faster than the others beyond noise" in out
    assert "50.9 ± 1.2" in out
    assert "没有哪个 γ 比其他 γ 快得超出噪声" in gamma_text(sweep, "zh")
    assert json.loads(json.dumps(sweep.to_dict()))["rows"][0]["tokens_per_second_spread"] == 1.2
    # runs without a spread (one batch of rounds) never earn it either
    assert analyse_gamma([point(1, 80.0, 2.0, 0.8, spread=None), point(2, 40.0, 2.0, 0.8)]).best_gamma is None
    apart = analyse_gamma([point(1, 80.0, 2.0, 0.8, spread=1.0), point(2, 40.0, 2.0, 0.8, spread=1.0)])
    assert apart.best_gamma == 1 and "★ only for a γ faster than every other beyond noise" in gamma_text(apart, "en")


def test_speedup_with_verify_ratio_one_is_theorem_3_8() -> None:
    assert speedup(0.8, 4, 0.05) == pytest.approx(expected_tau(0.8, 4) / (4 * 0.05 + 1))
    assert speedup(0.8, 4, 0.05, verify_ratio=2.0) == pytest.approx(expected_tau(0.8, 4) / 2.2)
    with pytest.raises(ValueError):
        speedup(0.8, 4, 0.05, verify_ratio=0.0)


def test_gamma_output_marks_the_best_and_shows_theory() -> None:
    sweep = analyse_gamma(SWEEP, (IGNORED_GAMMA,))
    out = gamma_text(sweep, "en")
    assert "★ best" in out and "theory" in out and "· the server ignored the requested γ" in out
    zh = gamma_text(sweep, "zh")
    assert "普通" in zh and "服务器忽略了所请求的 γ" in zh
    md = gamma_markdown(sweep, "en")
    assert md.startswith("# γ sweep") and "| γ |" in md
    data = json.loads(json.dumps(sweep.to_dict()))
    assert data["notes"] == [{"id": "sweep_ignored_gamma", "values": {}}]
    assert data["best_gamma"] == 2 and len(data["rows"]) == 4 and data["rows"][2]["best"]


def level(n: int, on: tuple[float, ...], off: tuple[float, ...], per_on: float = 0.0, per_off: float = 0.0,
          **counts: int | None) -> LoadPoint:
    """A load point from each repeat's aggregate tok/s (the means are theirs)."""
    return LoadPoint(n, sum(on) / len(on), sum(off) / len(off), per_on, per_off, 2 * n * len(on), on, off,
                     **{"on_drafted": 300, "on_accepted": 240, "off_drafted": 0, "off_accepted": 0, **counts})


LOAD = LoadSweep((level(1, (59.0, 60.0, 61.0), (39.0, 40.0, 41.0), 60.0, 40.0),
                  level(2, (89.0, 90.0, 91.0), (74.0, 75.0, 76.0), 45.0, 37.0),
                  level(4, (119.0, 120.0, 121.0), (129.0, 130.0, 131.0), 30.0, 32.0),
                  level(8, (149.0, 150.0, 151.0), (199.0, 200.0, 201.0), 19.0, 25.0)),
                 "http://a", "http://b", repeats=3)


def test_the_crossover_is_where_speculation_stops_paying() -> None:
    assert LOAD.crossover == LOAD.stops_paying == 4
    assert LOAD.points[0].gain == pytest.approx(1.5)
    out = load_text(LOAD, "en")
    assert "stops paying beyond noise at concurrency 4" in out and "✗" in out
    assert "60.0 ± 0.6" in out and "300 / 240" in out and "0 / 0" in out  # the spread and the server's counts
    assert "mean ± 2 standard errors over 3 repeats" in out
    assert "| 4 |" in load_markdown(LOAD, "en") and "- faster or slower only where" in load_markdown(LOAD, "en")
    never = LoadSweep((level(1, (10.0, 11.0, 9.0), (40.0, 41.0, 39.0)),), "a", "b", repeats=3)
    assert never.crossover == 1 and "slower beyond noise at concurrency 1" in load_text(never, "en")
    always = LoadSweep((level(1, (50.0, 51.0, 49.0), (40.0, 41.0, 39.0)),), "a", "b", repeats=3)
    assert always.crossover is None and "faster beyond noise at every concurrency" in load_text(always, "en")
    zh = load_text(LOAD, "zh")
    assert "从 4 个并发客户端起" in zh and "更快" in zh


def test_the_same_speed_on_and_off_is_no_difference_beyond_noise() -> None:
    """The issue's case: 78.1 against 77.1 tok/s is noise, not "speculation paid"."""
    tie = LoadSweep((level(1, (78.1, 74.0, 81.5), (77.1, 80.2, 73.9)), level(2, (120.0, 131.0, 125.0),
                                                                             (126.0, 119.0, 129.0))),
                    "a", "b", repeats=3)
    assert [p.verdict.outcome.value for p in tie.points] == ["within_noise", "within_noise"]
    out = load_text(tie, "en")
    assert "no difference beyond noise at any concurrency measured" in out and "paid" not in out
    assert tie.stops_paying is None and "✗" not in out  # a tie from the first level on stops nothing
    data = json.loads(json.dumps(tie.to_dict()))
    assert data["points"][0]["verdict"]["outcome"] == "within_noise"
    assert data["points"][0]["verdict"]["a"]["interval"][0] < data["points"][0]["verdict"]["b"]["interval"][1]
    # a single repeat has no spread: never a verdict
    single = LoadSweep((LoadPoint(1, 78.1, 77.1, 78.1, 77.1, 1, (78.1,), (77.1,)),), "a", "b")
    assert single.crossover == 1 and "one repeat gives no spread" in load_text(single, "en")


def test_the_load_shape_round_trips_for_the_learn_screen() -> None:
    data = json.loads(json.dumps(LOAD.to_dict()))
    assert data["schema"] == "specview.sweep/1" and data["kind"] == "load" and data["crossover"] == 4
    assert data["repeats"] == 3 and data["points"][0]["on_samples"] == [59.0, 60.0, 61.0]
    assert data["points"][0]["on_drafted"] == 300 and data["points"][0]["off_drafted"] == 0
    assert LoadSweep.from_dict(data) == LOAD
    with pytest.raises(ValueError):
        LoadSweep.from_dict({"schema": "other"})


@pytest.mark.parametrize(("change", "field"), [
    ({"points": [{"concurrency": 10**9}]}, "points[0].concurrency is 1000000000"),
    ({"points": [{"concurrency": 1, "on_tokens_per_second": float("nan")}]}, "points[0].on_tokens_per_second"),
    ({"points": [{}] * 100}, "points has 100 items, at most 64"),
    ({"notes": [{"id": 5}]}, "notes[0].id must be a string"),
    ({"on_label": ["x"]}, "on_label must be a string"),
    ({"points": [{"concurrency": 1, "on_tokens_per_second": 1, "off_tokens_per_second": 1, "on_per_request": 1,
                  "off_per_request": 1, "on_samples": [1.0] * 21}]}, "points[0].on_samples has 21 items"),
    ({"points": [{"concurrency": 1, "on_tokens_per_second": 1, "off_tokens_per_second": 1, "on_per_request": 1,
                  "off_per_request": 1, "on_drafted": -1}]}, "points[0].on_drafted"),
])
def test_a_load_sweep_file_out_of_bounds_names_the_field(change: dict[str, object], field: str) -> None:
    data = {**LOAD.to_dict(), **change}
    with pytest.raises(ValueError, match=re.escape(field)):
        LoadSweep.from_dict(data)


def test_bars() -> None:
    assert bar(1.0, 1.0, 4) == "████" and bar(0.5, 1.0, 4) == "██  " and bar(None, 1.0, 3) == "   "
    assert bar(0.5, 1.0, 4, fill="░") == "░░  " and bar(1 / 16, 1.0, 4) == "▎   "  # 2 eighths of a cell



def test_the_gamma_table_lines_up_in_chinese() -> None:
    """Columns are aligned in terminal cells: a Chinese header takes two cells a character."""
    from rich.cells import cell_len

    from specview.cli.table import right_aligned
    from specview.features.sweep.render import gamma_header, gamma_rows

    sweep = analyse_gamma(SWEEP)
    lines = right_aligned([gamma_header("zh"), *gamma_rows(sweep, "zh")])
    assert len({cell_len(line) for line in lines}) == 1, lines
    assert all(line in gamma_text(sweep, "zh") for line in lines)


def test_a_pair_that_does_not_compare_speculation_with_plain_decoding_is_refused() -> None:
    from specview.features.sweep.load import check_drafting, unchecked_notes
    from specview.kernel.errors import CliError, describe_error

    check_drafting(LOAD.points[0], "http://on", "http://off")  # on drafted, off did not
    with pytest.raises(CliError) as off:
        check_drafting(level(2, (1.0,), (1.0,), off_drafted=38, off_accepted=32), "http://on", "http://off")
    assert "the --off server http://off drafted 38 tokens (32 accepted) at concurrency 2" in str(off.value)
    assert "--off 服务器 http://off 在 2 个客户端时起草了 38 个 token" in describe_error(off.value, "zh")
    with pytest.raises(CliError) as idle:
        check_drafting(level(1, (1.0,), (1.0,), on_drafted=0, on_accepted=0), "http://on", "http://off")
    assert "the --on server http://on drafted nothing in 2 requests at concurrency 1" in str(idle.value)
    # counts nobody told: not refused, said in a note
    unknown = level(1, (1.0,), (1.0,), on_drafted=None, on_accepted=None, off_drafted=None, off_accepted=None)
    check_drafting(unknown, "http://on", "http://off")
    notes = unchecked_notes((unknown,), "http://on", "http://off")
    assert [n.values["side"] for n in notes] == ["--on", "--off"]
    sweep = LoadSweep((unknown,), "http://on", "http://off", notes)
    assert "could not check whether the --on server http://on drafted" in load_text(sweep, "en")
    from specview.features.sweep.render import load_rows

    assert load_rows(sweep, "en")[0][5:7] == ["—", "—"]  # drafted / accepted: not told, not 0


def test_the_load_table_lines_up_in_chinese() -> None:
    from rich.cells import cell_len

    from specview.cli.table import right_aligned
    from specview.features.sweep.render import load_header, load_rows

    lines = right_aligned([load_header("zh"), *load_rows(LOAD, "zh")])
    assert len({cell_len(line) for line in lines}) == 1, lines
    assert "差异未超出噪声" in load_text(LoadSweep((*LOAD.points[:1], level(2, (1.0, 2.0), (1.5, 1.4))), repeats=2),
                                       "zh")
