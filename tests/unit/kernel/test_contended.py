"""A baseline measured on a busy machine: each impossible number alone is caught, noise and a busy
but steady machine are not, the reason cites the load in both languages, and the load is read
(or faked) the same way every time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from specview.boundary.bounds import Invalid
from specview.kernel.calibration import Basis, Calibration
from specview.kernel.contended import DISAGREE, TOLERANCE, calibration_contended, contended, signal_of
from specview.kernel.machine_load import Load, LoadKind, busiest, sample_load
from specview.kernel.verdict import Estimate

CPU_COSTS = ((0.028, 0.029, 0.030), (0.055, 0.056, 0.057), (0.092, 0.093, 0.094))  # k = 1, 2, 3
CLEAN_PLAIN = (0.030, 0.031, 0.033)
TWO_ON_TWO = Load(2, 2)


def _signal(reason: object) -> str | None:
    from specview.texts.catalog import Phrase

    assert reason is None or isinstance(reason, Phrase)
    return None if reason is None else signal_of(reason)


def test_a_speedup_above_tau_beyond_noise_is_caught_and_one_within_noise_is_not() -> None:
    assert _signal(contended(speedup=Estimate(19.29, 2.6), tau=4.0)) == "above_tau"
    assert contended(speedup=Estimate(4.2, 0.3), tau=4.0) is None  # 4.2 − 2·0.3 < 4: could be τ itself
    assert contended(speedup=Estimate(1.77, 0.1), tau=4.0) is None
    # without a spread nothing says it is noise, and a number above τ is impossible
    assert _signal(contended(speedup=Estimate(4.1, None), tau=4.0)) == "above_tau"
    assert contended(speedup=Estimate(3.9, None), tau=4.0) is None


def test_a_k_token_forward_cheaper_than_one_token_beyond_noise_is_caught() -> None:
    one = Estimate(0.100, 0.002)
    assert _signal(contended(verify_costs=[one, Estimate(0.060, 0.002)])) == "verify_below_one"
    # below 1 only within TOLERANCE (two kernels may differ a little), or within noise: not a signal
    assert contended(verify_costs=[one, Estimate(0.100 * (1 - TOLERANCE / 2), 0.0001)]) is None
    assert contended(verify_costs=[Estimate(0.100, 0.03), Estimate(0.060, 0.03)]) is None
    assert contended(verify_costs=[one, Estimate(0.200, 0.002), Estimate(0.300, 0.002)]) is None


def test_plain_steps_that_disagree_within_a_calibration_or_between_two_are_caught() -> None:
    # most repeats DISAGREE× the fastest: the median the baseline takes was slowed
    assert _signal(contended(plain_repeats=[(0.030, 0.120, 0.130)])) == "plain_disagrees"
    # one slow repeat among three: the median still stands for the step
    assert contended(plain_repeats=[(0.030, 0.031, 0.400)]) is None
    fast, slow = (0.030, 0.031, 0.032), (0.120, 0.121, 0.122)
    assert _signal(contended(plain_repeats=[fast, slow])) == "plain_disagrees"
    # apart beyond noise but less than DISAGREE×: a load that drifted, not a taken machine
    assert contended(plain_repeats=[fast, tuple(t * (DISAGREE - 1) for t in fast)]) is None
    # DISAGREE× apart but within the noise of their own repeats
    assert contended(plain_repeats=[fast, (0.05, 0.10, 0.40)]) is None


def test_a_clean_calibration_passes_and_a_busy_load_alone_is_no_signal() -> None:
    clean = Calibration.timed(CLEAN_PLAIN, CPU_COSTS, context=40, load=Load(8, 2))
    assert calibration_contended(clean) is None
    assert contended(speedup=Estimate(0.97, 0.05), tau=4.0, verify_costs=[Estimate.of(k) for k in CPU_COSTS],
                     plain_repeats=[CLEAN_PLAIN], load=Load(8, 2)) is None
    # the same calibration with its 1-token forward slowed by other work is caught by its own repeats
    slowed = Calibration.timed(CLEAN_PLAIN, ((0.090, 0.091, 0.092), *CPU_COSTS[1:]), context=40, load=TWO_ON_TWO)
    assert _signal(calibration_contended(slowed)) == "verify_below_one"
    # nothing repeated (an old recording, an assumed cost): nothing to judge by
    assert calibration_contended(Calibration(Basis.MEASURED, 0.03, (0.09, 0.05))) is None


def test_the_reason_cites_the_load_in_english_and_chinese() -> None:
    reason = contended(speedup=Estimate(19.29, 2.6), tau=4.0, load=TWO_ON_TWO)
    assert reason is not None
    en, zh = reason.render("en"), reason.render("zh")
    assert en.startswith("the machine was busy while the baseline was measured (2 other runnable processes on 2 cores)")
    assert "τ 4.00" in en and "19.29" not in en  # never a number above τ, not even in the reason
    assert zh.startswith("测量基线时机器正忙（2 个核心上另有 2 个可运行的进程）") and "τ 4.00" in zh
    verify = contended(verify_costs=[Estimate(0.1, 0.001), Estimate(0.06, 0.001)], load=Load(3.2, 2, LoadKind.LOADAVG))
    assert verify is not None
    assert "load average 3.2 on 2 cores" in verify.render("en")
    assert "a 2-token forward timed 0.60× a 1-token one" in verify.render("en")
    assert "2 个核心上的平均负载为 3.2" in verify.render("zh") and "0.60" in verify.render("zh")
    plain = contended(plain_repeats=[(0.030, 0.120, 0.130)])
    assert plain is not None
    assert "its load was not read" in plain.render("en") and "120.0 ms" in plain.render("en")
    assert "未读取负载" in plain.render("zh") and "120.0 毫秒" in plain.render("zh")


def _fake_proc(root: Path, loadavg: str, states: str) -> Path:
    root.mkdir(exist_ok=True)
    (root / "loadavg").write_text(loadavg, encoding="ascii")
    for i, state in enumerate(states):
        task = root / "self" / "task" / str(100 + i)
        task.mkdir(parents=True)
        (task / "stat").write_text(f"{100 + i} (python (x)) {state} 1 2 3", encoding="ascii")
    return root


def test_the_load_is_the_runnable_tasks_that_are_not_ours(tmp_path: Path) -> None:
    proc = _fake_proc(tmp_path, "2.10 1.50 1.00 5/300 1234\n", "RSR")  # 5 runnable, 2 of them ours
    load = sample_load(proc)
    assert load == Load(3, os.cpu_count() or 1, LoadKind.RUNNABLE)
    assert sample_load(_fake_proc(tmp_path / "idle", "0.1 0.1 0.1 1/300 1\n", "R")) == Load(0, os.cpu_count() or 1)


def test_without_proc_the_load_average_stands_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (3.456, 2.0, 1.0))
    load = sample_load(tmp_path / "none")
    assert load is not None and load.kind is LoadKind.LOADAVG and load.others == pytest.approx(3.46)

    def no_loadavg() -> tuple[float, float, float]:
        raise OSError("not here")

    monkeypatch.setattr(os, "getloadavg", no_loadavg)
    assert sample_load(tmp_path / "none") is None


def test_a_calibration_keeps_its_load_and_one_recorded_without_it_still_reads() -> None:
    cal = Calibration.timed(CLEAN_PLAIN, CPU_COSTS, context=40, load=TWO_ON_TWO)
    assert Calibration.from_dict(cal.to_dict()) == cal
    old = {k: v for k, v in cal.to_dict().items() if k != "load"}
    assert Calibration.from_dict(old).load is None
    with pytest.raises(Invalid, match=r"calibration\.load\.kind"):
        Calibration.from_dict({**old, "load": {"others": 1, "cores": 2, "kind": "guess"}})
    with pytest.raises(Invalid, match=r"calibration\.load\.cores"):
        Calibration.from_dict({**old, "load": {"others": 1, "cores": 0, "kind": "runnable"}})
    assert busiest([None, Load(1, 2), Load(4, 2), None]) == Load(4, 2) and busiest([None]) is None
