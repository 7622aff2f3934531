"""features/diff/model.py: first divergence by id, by text (servers), and when one run stops early."""

from __future__ import annotations

from specview.features.diff.model import DiffResult, Emitted, Margin, first_divergence


def toks(ids: list[int | None], texts: list[str], rounds: list[int] | None = None) -> list[Emitted]:
    rounds = rounds or list(range(len(ids)))
    return [Emitted(i, t, r, "plain") for i, t, r in zip(ids, texts, rounds, strict=True)]


def test_by_id() -> None:
    a = toks([1, 2, 3, 4], ["a", "b", "c", "d"])
    assert first_divergence(a, toks([1, 2, 3, 4], ["a", "b", "c", "d"])) == (4, None)
    n, d = first_divergence(a, toks([1, 2, 9, 4], ["a", "b", "x", "d"], [0, 0, 0, 1]))
    assert n == 2 and d is not None and d.index == 2 and d.prefix == "ab" and d.candidate is not None
    assert d.candidate.round == 0 and d.candidate.token_id == 9 and not d.by_text


def test_one_run_stopping_early_is_a_divergence() -> None:
    n, d = first_divergence(toks([1, 2, 3], list("abc")), toks([1, 2], list("ab")))
    assert n == 2 and d is not None and d.candidate is None and d.reference is not None


def test_by_text_when_servers_give_no_ids() -> None:
    ref = toks([None] * 3, ["The", " cat", " sat"])
    cand = toks([None] * 3, ["The", " cap", " sat"], [0, 1, 1])
    n, d = first_divergence(ref, cand)
    assert n == 6 and d is not None and d.by_text and d.index == 1
    assert d.reference is not None and d.reference.text == " cat"
    assert d.candidate is not None and d.candidate.text == " cap" and d.candidate.round == 1
    assert first_divergence(ref, toks([None, None], ["The cat", " sat"])) == (11, None)  # split differently


def test_verdict_json() -> None:
    _, d = first_divergence(toks([1, 2], list("ab")), toks([1, 3], list("ac")))
    result = DiffResult("plain", "spec", 1, d, Margin(2.0, 1.99, 0.01))
    data = result.to_dict()
    assert not data["identical"] and data["margin"]["near_tie"] and data["divergence"]["candidate"]["id"] == 3
