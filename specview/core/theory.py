"""Closed forms from Leviathan et al. 2022 (Eq. 1, Thm 3.8), i.i.d. acceptance.

Theorem 3.8 assumes verifying γ drafts costs one target forward. In general the round costs
γ draft steps plus one (γ+1)-token forward, so with c = draft step ÷ 1-token forward and the
verify-cost ratio v(γ) = cost(γ+1 tokens) ÷ cost(1 token):

    speedup = τ / (γc + v(γ))

v = 1 is the memory-bound case (a GPU at batch 1) and gives Theorem 3.8 back; a CPU, where
the forward is compute-bound, has v rising with γ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

MAX_GAMMA = 32  # the most drafts per round anything in specview accepts

VerifyRatio = Callable[[int], float]  # γ → v(γ) = cost(γ+1) / cost(1)


def expected_tau(alpha: float, gamma: float) -> float:
    """Expected tokens per target forward, bonus included: (1 − α^{γ+1}) / (1 − α)."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got {gamma}")
    if alpha >= 1.0:
        return gamma + 1.0
    return float((1.0 - alpha ** (gamma + 1)) / (1.0 - alpha))


def tau_from_positions(acceptance: Sequence[float]) -> float:
    """Expected τ when draft k is accepted with conditional probability acceptance[k]."""
    tau, survive = 1.0, 1.0
    for a in acceptance:
        survive *= a
        tau += survive
    return tau


def speedup(alpha: float, gamma: int, c: float, verify_ratio: float = 1.0) -> float:
    """Walltime improvement τ / (γc + v): Theorem 3.8 when verifying costs one forward (v = 1).

    v = cost of the (γ+1)-token verify forward ÷ cost of a 1-token forward.
    """
    if c < 0:
        raise ValueError(f"c must be >= 0, got {c}")
    if verify_ratio <= 0:
        raise ValueError(f"verify_ratio must be > 0, got {verify_ratio}")
    return expected_tau(alpha, gamma) / (gamma * c + verify_ratio)


def ratios_from_costs(costs: Sequence[float]) -> VerifyRatio:
    """v(γ) from measured k-token forward times (costs[k-1] for k = 1, 2, …); γ must be < len(costs)."""
    if not costs or costs[0] <= 0:
        raise ValueError("verify costs need a positive 1-token cost first")
    one = costs[0]

    def ratio(gamma: int) -> float:
        return costs[gamma] / one

    return ratio


def best_gamma(
    alpha: float, c: float, max_gamma: int = MAX_GAMMA, verify_ratio: VerifyRatio | None = None
) -> tuple[int, float]:
    """The integer γ in [0, max_gamma] maximising τ / (γc + v(γ)), and that speedup.

    Without `verify_ratio` v is 1 for every γ (Theorem 3.8). γ = 0 is plain decoding (speedup 1).
    """
    best = (0, 1.0)
    for gamma in range(1, max_gamma + 1):
        v = 1.0 if verify_ratio is None else verify_ratio(gamma)
        s = speedup(alpha, gamma, c, v)
        if s > best[1] + 1e-12:
            best = (gamma, s)
    return best


def survival(acceptance: Sequence[float]) -> list[float]:
    """P(drafts 1…k all accepted) for k = 1…γ, from the conditional per-position acceptance."""
    out, alive = [], 1.0
    for a in acceptance:
        alive *= a
        out.append(alive)
    return out


def conditional_from_marginal(marginal: Sequence[float]) -> list[float]:
    """P(draft k accepted | drafts before it accepted) from the marginal P(draft k accepted)."""
    out, before = [], 1.0
    for m in marginal:
        out.append(m / before if before > 0 else 0.0)
        before = m
    return out


def alpha_for_tau(tau: float, gamma: int) -> float:
    """Invert Eq. 1: the constant α whose expected τ at this γ is `tau` (bisection)."""
    if not 1.0 <= tau <= gamma + 1:
        raise ValueError(f"tau must be in [1, {gamma + 1}] for gamma {gamma}, got {tau}")
    lo, hi = 0.0, 1.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if expected_tau(mid, gamma) < tau:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
