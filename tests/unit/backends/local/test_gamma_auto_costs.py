"""`--gamma auto` weighs drafting's costs before it drafts: the calibration's draft step gives c
before any round was timed, a draft model's catch-up on the context (and the rounds it takes to
learn the acceptance) is weighed against what the tokens left could save, and a round whose
draft began with a catch-up is not timed into c.

The costs are the shapes measured on this CPU (Gemma 3 270M, 2 threads, demo prompt): the
target's k-token forwards below (odd k dearer than the next even k), the Q4_0 draft's 1-token
forward 0.53 of the target's, the prompt's prefill 3.3 ms a token."""

from __future__ import annotations

from specview.backends.local.drafters import DraftCosts
from specview.backends.local.gamma_auto import MIN_VERDICTS, AutoGamma
from specview.kernel.events import Basis, Calibration
from specview.kernel.gamma_choice import Why
from specview.report.sentences import choice_text
from specview.texts.catalog import text

MEASURED_S = (0.0284, 0.0554, 0.0925, 0.0690, 0.1058, 0.0805, 0.1127, 0.0971, 0.1367)  # k = 1 … 9
DRAFT_STEP_S = 0.53 * MEASURED_S[0]
PREFILL_S = 0.0033
PROMPT = 208


def _calibration(costs: tuple[float, ...] = MEASURED_S) -> Calibration:
    return Calibration(Basis.MEASURED, costs[0], costs)


def _pair(left: int, behind: int = PROMPT, step_s: float | None = DRAFT_STEP_S) -> DraftCosts:
    return DraftCosts(step_s, behind, PREFILL_S, left)


def test_a_draft_model_as_dear_as_the_target_is_never_run() -> None:
    """The target drafting for itself: c = 1 from the calibration's draft step, so even drafts
    accepted every time lose — γ 0 before the first round, the draft model never evaluates."""
    auto = AutoGamma()
    auto.calibrated(_calibration(), _pair(left=100_000, step_s=MEASURED_S[0]))
    assert auto.value == 0 and auto.choice.why is Why.NEVER
    assert auto.choice.c is not None and abs(auto.choice.c - 1.0) < 1e-9
    assert all(s < 1 for s in auto.choice.speedups[1:])


def test_without_the_draft_step_the_first_choice_learns_at_a_loss() -> None:
    """What it did before the calibration timed the draft step: free drafts assumed, so it drafts."""
    auto = AutoGamma()
    auto.calibrated(_calibration(), _pair(left=100_000, step_s=None))
    assert auto.value > 0 and auto.choice.why is Why.LEARNING


def test_a_short_run_does_not_pay_for_the_draft_models_catch_up() -> None:
    """The pair could pay at acceptance 1 (ceiling ≈ 1.1× at γ 7), but reading the 208-token prompt
    and learning the acceptance cost more than 128 tokens could save: γ 0 from round 0, no probe."""
    auto = AutoGamma()
    auto.calibrated(_calibration(), _pair(left=128))
    assert auto.value == 0 and auto.choice.why is Why.SHORT, auto.choice
    assert auto.settled, "off for good: the engine need not recalibrate every 64 rounds"
    assert 1.02 < max(auto.choice.speedups) < 1.5
    for _ in range(2048):
        auto.update(0, 0)
    assert auto.value == 0 and auto.choice.why is Why.SHORT
    kinds = [c.why for c in auto.take()]
    assert Why.PROBE not in kinds


def test_a_long_run_tries_the_same_pair() -> None:
    auto = AutoGamma()
    auto.calibrated(_calibration(), _pair(left=20_000))
    assert auto.value > 0 and auto.choice.why is Why.LEARNING and not auto.settled


def test_prompt_lookup_has_nothing_to_catch_up_on_and_is_tried() -> None:
    auto = AutoGamma()
    auto.calibrated(_calibration(), DraftCosts(None, 0, PREFILL_S, 16))
    assert auto.value > 0 and auto.choice.why is Why.LEARNING


def test_a_round_that_began_with_the_catch_up_is_not_timed_into_c() -> None:
    """Round 1 drafts after the prompt's prefill (0.7 s for 4 drafts): c stays the calibration's
    0.53 instead of ≈ 6; round 2's draft time (no catch-up) is the first one timed."""
    auto = AutoGamma()
    auto.calibrated(_calibration(), _pair(left=20_000))
    gamma = auto.value
    auto.update(gamma, gamma, draft_s=0.7)
    c = auto.draft_cost()
    assert c is not None and abs(c - 0.53) < 1e-9
    auto.update(gamma, gamma, draft_s=gamma * 0.6 * MEASURED_S[0])
    c = auto.draft_cost()
    assert c is not None and abs(c - 0.6) < 1e-9
    for _ in range(MIN_VERDICTS):
        auto.update(gamma, 0, draft_s=gamma * 0.6 * MEASURED_S[0])
    assert auto.choice.why is not Why.SHORT  # the catch-up was paid: it no longer weighs


def test_the_short_choice_says_why_in_both_languages() -> None:
    auto = AutoGamma()
    auto.calibrated(_calibration(), _pair(left=128))
    en, zh = (choice_text(auto.choice, lang) for lang in ("en", "zh"))
    assert "context" in en and "γ 0" in en
    assert "上下文" in zh and "γ 0" in zh
    assert text("gauge.gamma_auto.short", "en") == "γ auto"  # the why's id lives beside the gauge's own
