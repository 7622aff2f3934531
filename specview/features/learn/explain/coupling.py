"""Screen 6 · lossless rejection sampling: overlap, residual, α = 1 − TV, the proof with numbers.

Leviathan et al. 2022 §2.3 and App. A.1; Chen et al. 2023 Thm 1. Draft x ~ q, keep it with
probability min(1, p(x)/q(x)), else draw from norm(max(0, p − q)): the emitted token is
distributed as p, and a draft is kept with probability α = Σ min(p, q) = 1 − TV(p, q).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from specview.kernel.stats import chi_square

# A small vocabulary: the target p, and a draft far from it; the closeness control slides q
# from the far draft (0) to p itself (1).
TARGET_P = (0.34, 0.22, 0.14, 0.11, 0.08, 0.06, 0.03, 0.02)
FAR_Q = (0.02, 0.04, 0.07, 0.10, 0.13, 0.16, 0.22, 0.26)
DEFAULT_CLOSENESS = 0.5
CLOSENESS_STEP = 0.05
DEFAULT_DRAWS = 100_000
DEFAULT_SEED = 0
SIGNIFICANCE = 0.001


@dataclass(frozen=True, slots=True)
class Split:
    """p split into the part the draft covers (overlap) and the part it misses (residual)."""

    overlap: tuple[float, ...]  # min(p, q)
    residual: tuple[float, ...]  # max(0, p − q)
    excess: tuple[float, ...]  # max(0, q − p): what the draft proposes too often
    alpha: float  # Σ min(p, q)
    tv: float  # ½ Σ |p − q|


def split(p: Sequence[float], q: Sequence[float]) -> Split:
    """Overlap, residual, excess, α and TV for two distributions over the same tokens."""
    if len(p) != len(q) or not p:
        raise ValueError("p and q must be non-empty and of the same length")
    overlap = tuple(min(a, b) for a, b in zip(p, q, strict=True))
    residual = tuple(max(0.0, a - b) for a, b in zip(p, q, strict=True))
    excess = tuple(max(0.0, b - a) for a, b in zip(p, q, strict=True))
    tv = 0.5 * sum(abs(a - b) for a, b in zip(p, q, strict=True))
    return Split(overlap, residual, excess, sum(overlap), tv)


def draft_between(closeness: float, p: Sequence[float] = TARGET_P, far: Sequence[float] = FAR_Q) -> list[float]:
    """q = (1 − t)·far + t·p: t = 0 is the far draft, t = 1 the target itself."""
    if not 0.0 <= closeness <= 1.0:
        raise ValueError(f"closeness must be in [0, 1], got {closeness}")
    return [(1.0 - closeness) * f + closeness * a for a, f in zip(p, far, strict=True)]


def proof_terms(p: Sequence[float], q: Sequence[float], token: int) -> dict[str, float | None]:
    """P(emit x) = q(x)·min(1, p(x)/q(x)) + (1 − α)·r(x), r = norm(max(0, p − q)), for one token x.

    The acceptance term equals min(p(x), q(x)); the rejection term equals max(0, p(x) − q(x));
    their sum is p(x). r(x) is None when α = 1 (the draft is never rejected).
    """
    parts = split(p, q)
    px, qx = p[token], q[token]
    keep = min(1.0, px / qx) if qx > 0 else None
    accept_term = qx * keep if keep is not None else 0.0
    reject = 1.0 - parts.alpha
    r_x = parts.residual[token] / reject if reject > 1e-12 else None
    reject_term = reject * r_x if r_x is not None else 0.0
    return {
        "p": px,
        "q": qx,
        "keep": keep,
        "accept_term": accept_term,
        "rejection": reject,
        "r": r_x,
        "reject_term": reject_term,
        "total": accept_term + reject_term,
    }


def sample_check(
    p: Sequence[float], q: Sequence[float], draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
    *, wrong: bool = False,
) -> dict[str, Any]:
    """Draw `draws` rounds through the kernel's sampler (kernel/sampling.py) and test the emitted tokens against p."""
    import numpy as np

    from specview.kernel.sampling import draw_emitted

    rng = np.random.default_rng(seed)
    emitted = draw_emitted(p, q, draws, rng, resample_from_target=wrong)
    counts = np.bincount(emitted, minlength=len(p)).tolist()
    test = chi_square(counts, p)
    return {
        "draws": draws,
        "seed": seed,
        "wrong_sampler": wrong,
        "counts": counts,
        "frequencies": [c / draws for c in counts],
        "chi_square": test.statistic,
        "dof": test.dof,
        "p_value": test.p_value,
        "significance": SIGNIFICANCE,
        "passes": test.passes(SIGNIFICANCE),
    }


def coupling_numbers(
    closeness: float = DEFAULT_CLOSENESS, token: int = 0, *, p: Sequence[float] | None = None,
    q: Sequence[float] | None = None, sample: bool = True, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
    wrong: bool = False,
) -> dict[str, Any]:
    """Everything screen 6 shows. Given p and q (a live token's rows) the closeness control is unused."""
    target = list(TARGET_P if p is None else p)
    draft = draft_between(closeness, target) if q is None else list(q)
    if not 0 <= token < len(target):
        raise ValueError(f"token must be in [0, {len(target)}), got {token}")
    parts = split(target, draft)
    out: dict[str, Any] = {
        "closeness": closeness if q is None else None,
        "token": token,
        "p": target,
        "q": draft,
        "overlap": list(parts.overlap),
        "residual": list(parts.residual),
        "excess": list(parts.excess),
        "alpha": parts.alpha,
        "tv": parts.tv,
        "rejection": 1.0 - parts.alpha,
        "proof": proof_terms(target, draft, token),
    }
    if sample:
        out["sampling"] = sample_check(target, draft, draws, seed, wrong=wrong)
    return out
