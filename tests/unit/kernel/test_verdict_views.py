"""kernel/verdict.py's rule where views compare: the compare summary's ▲ (report/leaders.py) only for a run
ahead of every other beyond noise; the speedup gauge says when 1× is within its noise."""

from __future__ import annotations

from specview.backends.factory import make_backend
from specview.kernel.gauges import Reading
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.report.leaders import alpha_spread, leaders, tau_spread


def reading(preset: str, seed: int, rounds: int) -> Reading:
    backend = make_backend(RunSpec(preset=preset, seed=seed, speed=0.0, max_rounds=rounds))
    session = Session(backend)
    for _ in session.run_headless():
        pass
    return Reading.of(session.metrics.snapshot(), backend.info)


def test_two_runs_of_one_preset_have_no_leader() -> None:
    runs = [reading("qwen3.6-mtp", seed, 150) for seed in (1, 2)]
    alphas = [r.snap.acceptance_rate for r in runs]
    taus = [r.snap.tau for r in runs]
    assert alphas[0] != alphas[1] and taus[0] != taus[1]  # the highest value alone would get a ▲
    lead = leaders(runs)
    assert lead["alpha"] is None and lead["tau"] is None and lead["expected_tau"] is None
    assert lead["tokens_per_second"] is None
    assert lead["draft_cost"] is None  # no spread known: never a leader


def test_a_run_ahead_beyond_noise_leads() -> None:
    runs = [reading("qwen3.6-mtp", 5, 400), reading("glm-5.2-mtp", 5, 400), reading("ngram", 5, 400)]
    lead = leaders(runs)
    assert lead["tau"] == 1, "GLM's 7-step MTP has the longest rounds, far beyond noise"
    for r in runs:
        se = alpha_spread(r)
        assert se is not None and 0 < se < 0.05
        assert (tau_spread(r) or 0) > 0


def test_the_speedup_gauge_says_when_plain_decoding_is_within_its_noise() -> None:
    from dataclasses import replace

    from specview.kernel.events import Basis
    from specview.kernel.gauges import GAUGES
    from specview.tui.gauges import note_text

    spec = next(g for g in GAUGES if g.key == "speedup")
    base = reading("qwen3.6-mtp", 5, 50)

    def note(measured: float, spread: float | None, basis: Basis = Basis.MEASURED, lang: str = "en") -> str:
        over = replace(base.over, speedup_measured=measured, speedup_spread=spread, speedup_basis=basis)
        return note_text(spec, replace(base, over=over), lang)

    within = "no difference beyond noise from plain decoding"
    assert within in note(1.03, 0.05) and spec.formatted(replace(base, over=replace(
        base.over, speedup_measured=1.03, speedup_spread=0.05)), windowed=False) == "1.03× ± 0.05"
    assert "与普通解码的差异未超出噪声" in note(0.97, 0.05, lang="zh")
    assert within not in note(1.5, 0.05)  # beyond noise: the number speaks
    assert within not in note(1.03, None, Basis.GIVEN)  # a given baseline: its spread is unknown, no verdict
    assert within not in note(1.0, None, Basis.DEFINITION)  # a plain run: 1× by definition
