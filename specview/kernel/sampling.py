"""Exact speculative verification on numpy arrays (Leviathan et al. 2022, Alg. 1).

Greedy (T = 0): keep drafts while they equal the target's argmax; at the first
mismatch emit the argmax (corrected); if all pass, emit the argmax of the next
row (bonus). Sampling (T > 0): keep draft x with probability min(1, p(x)/q(x));
at the first rejection draw from norm(max(0, p − q)); if all pass draw the bonus
from the next row of p. The emitted tokens are distributed exactly as p.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from specview.kernel.events import TokenStatus

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Decision:
    """One token the verifier reports, before the backend attaches text.

    Sampling verdicts also carry the uniform draw `u` a draft was judged with (accepted when
    u < min(1, p/q); none is drawn when p ≥ q), and for a corrected token the residual mass
    Σ max(0, p − q) = 1 − α at that position and the token's probability under the residual
    distribution it was drawn from. A discarded draft (after the first rejection) has no p.
    """

    token_id: int
    status: TokenStatus
    position: int
    p: float | None
    q: float | None
    u: float | None = None
    residual: float | None = None
    residual_p: float | None = None


@dataclass(frozen=True, slots=True)
class ChainVerification:
    """Outcome of verifying one round of drafts; `discarded` are the drafts after the first rejection."""

    accepted: int
    decisions: tuple[Decision, ...]
    discarded: tuple[Decision, ...] = ()

    @property
    def emitted_ids(self) -> list[int]:
        """Token ids committed to the output, in order."""
        return [d.token_id for d in self.decisions if d.status is not TokenStatus.REJECTED]


def probabilities(
    logits: npt.ArrayLike, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0
) -> FloatArray:
    """softmax(logits / T) after top-k and top-p filtering, in float64, row-wise.

    T <= 0 returns the one-hot argmax. The same call must be applied to p and q.
    """
    x = np.asarray(logits, dtype=np.float64)
    squeeze = x.ndim == 1
    x = np.atleast_2d(x)
    if temperature <= 0:
        out = np.zeros_like(x)
        out[np.arange(x.shape[0]), np.argmax(x, axis=1)] = 1.0
        one_hot: FloatArray = out[0] if squeeze else out
        return one_hot
    z = x / temperature
    if 0 < top_k < z.shape[1]:
        kth = np.partition(z, -top_k, axis=1)[:, -top_k][:, None]
        z = np.where(z >= kth, z, -np.inf)
    z = z - np.max(z, axis=1, keepdims=True)
    w = np.exp(z)
    w /= w.sum(axis=1, keepdims=True)
    if top_p < 1.0:
        order = np.argsort(-w, axis=1)
        sorted_w = np.take_along_axis(w, order, axis=1)
        keep_sorted = (np.cumsum(sorted_w, axis=1) - sorted_w) < top_p
        keep = np.zeros_like(keep_sorted)
        np.put_along_axis(keep, order, keep_sorted, axis=1)
        w = np.where(keep, w, 0.0)
        w /= w.sum(axis=1, keepdims=True)
    result: FloatArray = w[0] if squeeze else w
    return result


def sample(weights: FloatArray, rng: np.random.Generator) -> int:
    """Draw an index with probability proportional to non-negative `weights`."""
    cdf = np.cumsum(weights)
    total = cdf[-1]
    if not total > 0:
        raise ValueError("cannot sample from an all-zero distribution")
    index = int(np.searchsorted(cdf, rng.random() * total, side="right"))
    return min(index, len(weights) - 1)


def verify_greedy(
    p_rows: npt.ArrayLike, drafts: Sequence[int], q_rows: npt.ArrayLike | None = None
) -> ChainVerification:
    """Greedy verification. p_rows has γ+1 rows (logits or probabilities), q_rows γ rows."""
    p = np.atleast_2d(np.asarray(p_rows, dtype=np.float64))
    q = None if q_rows is None else np.atleast_2d(np.asarray(q_rows, dtype=np.float64))
    _check_shapes(p, q, drafts)
    decisions: list[Decision] = []
    for k, draft in enumerate(drafts):
        target = int(np.argmax(p[k]))
        qk = None if q is None else float(q[k, draft])
        if draft == target:
            decisions.append(Decision(draft, TokenStatus.ACCEPTED, k, float(p[k, draft]), qk))
            continue
        decisions.append(Decision(draft, TokenStatus.REJECTED, k, float(p[k, draft]), qk))
        q_fix = None if q is None else float(q[k, target])
        decisions.append(Decision(target, TokenStatus.CORRECTED, k, float(p[k, target]), q_fix))
        return ChainVerification(k, tuple(decisions), discarded_after(drafts, k, q))
    gamma = len(drafts)
    bonus = int(np.argmax(p[gamma]))
    decisions.append(Decision(bonus, _last_status(gamma), gamma, float(p[gamma, bonus]), None))
    return ChainVerification(gamma, tuple(decisions))


def verify_sampling(
    p_rows: npt.ArrayLike,
    q_rows: npt.ArrayLike | None,
    drafts: Sequence[int],
    rng: np.random.Generator,
) -> ChainVerification:
    """Leviathan rejection sampling. p_rows: γ+1 probability rows; q_rows: γ rows (None when γ = 0)."""
    p = np.atleast_2d(np.asarray(p_rows, dtype=np.float64))
    if q_rows is None and drafts:
        raise ValueError("sampling verification needs the draft's q rows")
    q = np.atleast_2d(np.asarray(q_rows if drafts else np.zeros((0, p.shape[1])), dtype=np.float64))
    _check_shapes(p, q, drafts)
    decisions: list[Decision] = []
    for k, draft in enumerate(drafts):
        px, qx = float(p[k, draft]), float(q[k, draft])
        if qx <= 0.0:
            raise ValueError(f"draft token {draft} at position {k} has q = 0")
        if px >= qx:  # min(1, p/q) = 1: accepted without a draw
            decisions.append(Decision(draft, TokenStatus.ACCEPTED, k, px, qx))
            continue
        u = rng.random()
        if u < px / qx:
            decisions.append(Decision(draft, TokenStatus.ACCEPTED, k, px, qx, u=u))
            continue
        decisions.append(Decision(draft, TokenStatus.REJECTED, k, px, qx, u=u))
        residual = np.maximum(p[k] - q[k], 0.0)
        mass = float(residual.sum())
        fix = sample(residual, rng) if mass > 0 else sample(p[k], rng)
        decisions.append(
            Decision(fix, TokenStatus.CORRECTED, k, float(p[k, fix]), float(q[k, fix]), residual=mass,
                     residual_p=float(residual[fix]) / mass if mass > 0 else None)
        )
        return ChainVerification(k, tuple(decisions), discarded_after(drafts, k, q))
    gamma = len(drafts)
    bonus = sample(p[gamma], rng)
    decisions.append(Decision(bonus, _last_status(gamma), gamma, float(p[gamma, bonus]), None))
    return ChainVerification(gamma, tuple(decisions))


def discarded_after(
    drafts: Sequence[int], rejected_at: int, q: FloatArray | Sequence[float | None] | None
) -> tuple[Decision, ...]:
    """The drafts after the one rejected at `rejected_at`: never verified, so no p; q where known
    (`q` is the draft's probability rows, or the draft's q of each of its own tokens)."""
    out = []
    for j in range(rejected_at + 1, len(drafts)):
        qj: float | None = None
        if isinstance(q, np.ndarray):
            qj = float(q[j, drafts[j]])
        elif q is not None and j < len(q):
            qj = q[j]
        out.append(Decision(drafts[j], TokenStatus.DISCARDED, j, None, qj))
    return tuple(out)


def _last_status(gamma: int) -> TokenStatus:
    """The target's own token after γ accepted drafts: a bonus, or plain when nothing was drafted."""
    return TokenStatus.BONUS if gamma else TokenStatus.PLAIN


def _check_shapes(p: FloatArray, q: FloatArray | None, drafts: Sequence[int]) -> None:
    if p.shape[0] < len(drafts) + 1:
        raise ValueError(f"need {len(drafts) + 1} target rows for {len(drafts)} drafts")
    if q is not None and (q.shape[0] < len(drafts) or q.shape[1] != p.shape[1]):
        raise ValueError("draft rows must cover every draft and match the target's vocabulary")


def draw_emitted(
    p: npt.ArrayLike, q: npt.ArrayLike, n: int, rng: np.random.Generator, *, resample_from_target: bool = False
) -> npt.NDArray[np.intp]:
    """n independent one-draft rounds at once: what `verify_sampling` emits at the first position.

    Each draws x ~ q, keeps it with probability min(1, p(x)/q(x)) and otherwise draws from
    norm(max(0, p − q)), vectorised so 100,000 rounds take milliseconds. `resample_from_target`
    is the classic mistake (redraw from p after a rejection), kept to show that the result then
    is *not* distributed as p.
    """
    pv = np.asarray(p, dtype=np.float64)
    qv = np.asarray(q, dtype=np.float64)
    if pv.shape != qv.shape or pv.ndim != 1:
        raise ValueError("p and q must be one-dimensional and of the same size")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    drafts = _draw_many(qv, n, rng)
    keep = rng.random(n) * qv[drafts] < pv[drafts]  # u < p/q, and always when p >= q
    out = drafts.copy()
    rejected = int(n - keep.sum())
    if rejected:
        residual = pv if resample_from_target else np.maximum(pv - qv, 0.0)
        out[~keep] = _draw_many(residual if residual.sum() > 0 else pv, rejected, rng)
    return out


def _draw_many(weights: FloatArray, n: int, rng: np.random.Generator) -> npt.NDArray[np.intp]:
    """n indices drawn with probability proportional to `weights` (the rule of `sample`)."""
    cdf = np.cumsum(weights)
    total = cdf[-1]
    if not total > 0:
        raise ValueError("cannot sample from an all-zero distribution")
    index = np.searchsorted(cdf, rng.random(n) * total, side="right")
    drawn: npt.NDArray[np.intp] = np.minimum(index, len(weights) - 1).astype(np.intp)
    return drawn
