"""Closed forms from Leviathan et al. 2022 (Eq. 1, Thm 3.8), i.i.d. acceptance.

Theorem 3.8 assumes verifying γ drafts costs one target forward. In general the round costs
γ draft steps plus one (γ+1)-token forward, so with c = draft step ÷ 1-token forward and the
verify-cost ratio v(γ) = cost(γ+1 tokens) ÷ cost(1 token):

    speedup = τ / (γc + v(γ))

v = 1 is the memory-bound case (a GPU at batch 1) and gives Theorem 3.8 back; a CPU, where
the forward is compute-bound, has v rising with γ.

A draft tree of depth D and N nodes verifies N + 1 tokens in one batch, so the same formula reads
τ / (Dc + v(N)) (its D draft forwards, and v at its nodes, not its depth: kernel/tree_cost.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

MAX_GAMMA = 32  # the most drafts per round anything in specview accepts

VerifyRatio = Callable[[int], float | None]  # γ → v(γ) = cost(γ+1) / cost(1); None where not measured
VerifyCosts = Sequence[float] | Mapping[int, float]  # seconds of a verify forward, indexed by γ


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
    return speedup_of_tau(expected_tau(alpha, gamma), gamma, c, verify_ratio)


def speedup_of_tau(tau: float, gamma: float, c: float, verify_ratio: float = 1.0) -> float:
    """τ / (γc + v) for any expected τ: the i.i.d. one (`speedup`) or one from the per-position
    acceptance (`tau_from_positions`, what `--gamma auto` decides with). The one speedup formula.
    `gamma` is the drafts a round makes on average: a preset whose rounds draft fewer than its γ
    (a variable depth, rounds without a match) pays for the drafts it makes (`Preset.speedup_at`)."""
    if c < 0:
        raise ValueError(f"c must be >= 0, got {c}")
    if verify_ratio <= 0:
        raise ValueError(f"verify_ratio must be > 0, got {verify_ratio}")
    return tau / (gamma * c + verify_ratio)


def verify_ratio(costs: VerifyCosts, gamma: int) -> float | None:
    """v(γ) = cost(γ+1 tokens) ÷ cost(1 token) = costs[γ] ÷ costs[0]; None where either was not timed.

    `costs[γ]` is what verifying γ drafts cost, a (γ+1)-token forward; `costs[0]` a plain
    1-token one. The one estimator every view uses: a calibration's k-token forwards
    (`Calibration.verify_costs_s`, a sequence) for the overlay and Learn 2, and the γ sweep's
    mean round verify per γ, each timed in a run of its own with the plain run as γ 0 (a
    mapping, since a sweep need not time every γ). The sweep's rounds may verify fewer than γ
    drafts (n-gram drafting finds fewer): its v is that of the rounds as they ran, which is the
    ratio its predicted speedup needs, so the formula stays the same.
    """
    if gamma < 0:
        return None
    try:
        one, at = costs[0], costs[gamma]
    except (IndexError, KeyError):
        return None
    return at / one if one > 0 and at > 0 else None


def best_gamma(
    alpha: float, c: float, max_gamma: int = MAX_GAMMA, verify_ratio: VerifyRatio | None = None
) -> tuple[int, float]:
    """The integer γ in [0, max_gamma] maximising τ / (γc + v(γ)), and that speedup.

    Without `verify_ratio` v is 1 for every γ (Theorem 3.8); with one, the search ends at the
    first γ whose v was not measured. γ = 0 is plain decoding (speedup 1).
    """
    def at(gamma: int) -> float | None:
        v = 1.0 if verify_ratio is None else verify_ratio(gamma)
        return None if v is None else speedup(alpha, gamma, c, v)

    return best_over(at, max_gamma)


def best_over(speedup_at: Callable[[int], float | None], max_gamma: int = MAX_GAMMA) -> tuple[int, float]:
    """The γ in [0, max_gamma] of the highest `speedup_at(γ)`, and that speedup: the one search for
    the best γ, whatever gives the speedup at each γ (Eq. 1 at one α, a preset's own per-position
    acceptance and depth). γ = 0 is plain decoding (speedup 1); ties go to the smaller γ; the search
    ends at the first γ where `speedup_at` says None (not measured)."""
    best = (0, 1.0)
    for gamma in range(1, max_gamma + 1):
        s = speedup_at(gamma)
        if s is None:
            break
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


def conditional_from_marginal(marginal: Sequence[float], total: float = 1.0) -> list[float | None]:
    """P(draft k accepted | drafts before it accepted) from the marginal P(draft k accepted):
    marginal[k] ÷ marginal[k − 1], the first ÷ `total`.

    The marginals may be probabilities (`total` 1) or counts: a server's per-position accepted
    counts with `total` its number of drafts (`specview watch`). None where the position before
    was never reached (no draft got that far, so the conditional is undefined). The inverse is
    `survival`.
    """
    out: list[float | None] = []
    before = total
    for m in marginal:
        out.append(m / before if before > 0 else None)
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


def implied_c(tau: float, gamma: float, measured_speedup: float, verify_ratio: float = 1.0) -> float | None:
    """The draft cost c that `speedup_of_tau` would need to give `measured_speedup` at this τ
    and (mean) γ: the same formula solved for c, (τ ÷ speedup − v) ÷ γ. None where γ or the
    speedup is not positive; a negative answer (faster than the formula allows at c 0) is 0."""
    if gamma <= 0 or measured_speedup <= 0:
        return None
    return max(0.0, (tau / measured_speedup - verify_ratio) / gamma)
