"""Is greedy speculation lossless on my model? Two runs of one prompt at T = 0, token by token.

The reference is plain decoding (or the first of two server configurations), the candidate the
speculative run. Tokens are compared by id when both runs know them (local llama.cpp), else by
text: the first differing character, mapped back to the token (and round) that emitted it in
each run. A run that stops earlier than the other diverges where it stopped. The logit margin
at the divergence and the cause (local only: the reference re-run on the speculative run's
own batches, features/diff/cause.py) are filled in by the caller.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from specview.kernel.events import Round

NEAR_TIE = 0.05  # logit difference below which two kernels may legitimately disagree


@dataclass(frozen=True, slots=True)
class Emitted:
    """One emitted token and the round that emitted it."""

    token_id: int | None
    text: str
    round: int
    status: str


@dataclass(frozen=True, slots=True)
class Margin:
    """Target logits at the divergence, recomputed over the prompt and the common prefix."""

    reference_logit: float
    candidate_logit: float
    top1_minus_top2: float

    @property
    def margin(self) -> float:
        """reference − candidate: how much the target preferred the reference's token."""
        return self.reference_logit - self.candidate_logit

    @property
    def near_tie(self) -> bool:
        return abs(self.margin) < NEAR_TIE


EXACT, NUMERICS, DEFECT = "exact", "numerics", "defect"


@dataclass(frozen=True, slots=True)
class Cause:
    """Why the runs differ, from the reference re-run on the speculative run's own batches.

    exact: no divergence. numerics: the speculative run equals the target's greedy on the same
    batches, so the loop is exact and one-token decoding differs by kernel numerics (the widest
    batch at or before the divergence: `batch_width` tokens deciding tokens from `position` on;
    `logit_shift` = how much the reference − speculative logit gap moved between the one-token
    and the batched computation). defect: even the same batches give another token, from
    `defect_at` on: the speculative path is not lossless.
    """

    kind: str
    batch_width: int | None = None
    position: int | None = None
    logit_shift: float | None = None
    batched: Margin | None = None  # the two tokens' logits on the speculative run's batches
    defect_at: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "batch_width": self.batch_width, "position": self.position,
                "logit_shift": self.logit_shift, "defect_at": self.defect_at,
                "batched": None if self.batched is None else _margin(self.batched)}


@dataclass(frozen=True, slots=True)
class Divergence:
    """Where the runs first differ (a token is None where that run had already stopped)."""

    index: int
    reference: Emitted | None
    candidate: Emitted | None
    prefix: str  # the text both runs emitted before it
    by_text: bool


@dataclass(frozen=True, slots=True)
class DiffResult:
    """The verdict."""

    reference_label: str
    candidate_label: str
    compared: int  # tokens (or, by text, characters) that matched before the end or the divergence
    divergence: Divergence | None
    margin: Margin | None = None  # on the reference's own computation (one-token decoding)
    cause: Cause | None = None  # None where it cannot be told (servers, a run without replayable batches)

    @property
    def identical(self) -> bool:
        return self.divergence is None

    @property
    def lossless(self) -> bool:
        """Identical, or differing from one-token decoding only by kernel numerics: the speculative
        output is the target's own greedy on the same batches (`diff` exits 0)."""
        return self.identical or (self.cause is not None and self.cause.kind == NUMERICS)

    def to_dict(self) -> dict[str, Any]:
        d = self.divergence
        return {
            "identical": self.identical, "lossless": self.lossless, "reference": self.reference_label,
            "candidate": self.candidate_label, "compared": self.compared,
            "divergence": None if d is None else {
                "index": d.index, "by_text": d.by_text, "prefix_tail": d.prefix[-80:],
                "reference": _emitted(d.reference), "candidate": _emitted(d.candidate),
            },
            "margin": None if self.margin is None else _margin(self.margin),
            "cause": None if self.cause is None else self.cause.to_dict(),
        }


def _margin(m: Margin) -> dict[str, Any]:
    return {"reference_logit": m.reference_logit, "candidate_logit": m.candidate_logit, "margin": m.margin,
            "top1_minus_top2": m.top1_minus_top2, "near_tie": m.near_tie}


def _emitted(e: Emitted | None) -> dict[str, Any] | None:
    return None if e is None else {"id": e.token_id, "text": e.text, "round": e.round, "status": e.status}


def emitted(rounds: Iterable[Round]) -> list[Emitted]:
    """Every emitted token in order, with its round's index."""
    return [Emitted(t.token_id, t.text, r.index, t.status.value) for r in rounds for t in r.tokens if t.emitted]


def first_divergence(reference: list[Emitted], candidate: list[Emitted]) -> tuple[int, Divergence | None]:
    """(tokens or characters that matched, the first divergence or None)."""
    if all(e.token_id is not None for e in reference + candidate):
        for i, (a, b) in enumerate(zip(reference, candidate, strict=False)):
            if a.token_id != b.token_id:
                return i, Divergence(i, a, b, "".join(e.text for e in reference[:i]), by_text=False)
        n = min(len(reference), len(candidate))
        if len(reference) == len(candidate):
            return n, None
        return n, Divergence(n, _get(reference, n), _get(candidate, n), "".join(e.text for e in reference[:n]),
                             by_text=False)
    return _by_text(reference, candidate)


def _get(seq: list[Emitted], i: int) -> Emitted | None:
    return seq[i] if i < len(seq) else None


def _by_text(reference: list[Emitted], candidate: list[Emitted]) -> tuple[int, Divergence | None]:
    a = "".join(e.text for e in reference)
    b = "".join(e.text for e in candidate)
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    if a == b:
        return len(a), None
    ref_i, ref_tok = _owner(reference, at)
    _, cand_tok = _owner(candidate, at)
    return at, Divergence(ref_i, ref_tok, cand_tok, a[:at], by_text=True)


def _owner(seq: list[Emitted], char: int) -> tuple[int, Emitted | None]:
    """(index, token) of the token whose text covers character `char` (None past the end)."""
    seen = 0
    for i, e in enumerate(seq):
        seen += len(e.text)
        if char < seen:
            return i, e
    return len(seq), None
