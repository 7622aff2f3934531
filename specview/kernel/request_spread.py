"""The spread of acceptance over requests: a histogram, and the requests far from the rest.

A request's acceptance here is its accepted ÷ drafted draft tokens (the engines' "acceptance
rate"; specview's α divides by verified tokens, which no engine reports per request). The sources
are the counts a server returns with one request (llama-server's `timings.draft_n` /
`draft_n_accepted`, vLLM's `metrics.speculative_decoding`, SGLang's `spec_tokens_details`).

**The outlier rule: a binomial test, and outside the spread of the others.** A request of 8
drafted tokens that accepted 1 is not evidence of anything, and one of 800 that accepted 100 is;
quartile rules alone cannot tell those apart. So each request is tested against the pooled rate of
the *other* requests (leave-one-out, so a long outlier does not set its own yardstick):
p₀ = (A − aᵢ) ÷ (D − dᵢ), and the tail P(X ≤ aᵢ) (low) or P(X ≥ aᵢ) (high) of X ~ Binomial(dᵢ, p₀).
A request is listed when all three hold:
1. that tail is below LEVEL ÷ (2m) over the m requests (Bonferroni: all m two-sided tests together
   are wrong at most LEVEL of the time): not a short request's luck;
2. its rate is outside Tukey's fences of all the requests' rates, Q1 − FENCE·IQR … Q3 + FENCE·IQR:
   prompts differ, and a binomial alone calls every request of a varied mix an outlier (drafted
   tokens are not independent trials either: a draft stops being accepted at its first miss, so
   acceptance comes in runs and requests spread wider than a binomial says);
3. its rate is at least MIN_GAP from p₀ (when the others agree exactly, the fences close).
Below MIN_REQUESTS requests with drafts no request is listed (quartiles of four say nothing).

Bounds: at most MAX_KEPT requests are kept (the rest are counted in `more`, and said); every
count is checked (accepted ≤ drafted, both in 0 … MAX_COUNTER) by `checked`, and a request that
fails is not added (its source says why, in one line, where it was read).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from specview.boundary.bounds import MAX_COUNTER, Invalid, integer

BINS = 10  # equal bins of acceptance on 0 … 1 (the last includes 1.0)
MAX_KEPT = 4096  # requests kept for the test (bounded memory); the rest counted, and said
MAX_ID = 80  # characters of a request id kept (ids come from servers: sanitized where shown)
MIN_REQUESTS = 5  # requests with drafts needed before any is called far from the others
FENCE = 1.5  # Tukey's: outside Q1 − 1.5·IQR … Q3 + 1.5·IQR
LEVEL = 0.01  # family-wise: the chance that any listed request is only noise
MIN_GAP = 0.2  # a listed request's rate differs from the others' pooled rate by at least this
MAX_TAIL_TERMS = 20_000  # terms of an exact binomial tail summed (the normal approximation beyond)
NORMAL_FROM = 25.0  # n·p·(1 − p) from which the normal approximation stands in for the exact sum
LOW, HIGH = "low", "high"  # far below (garbled output?) or far above (a repetition loop?)


@dataclass(frozen=True, slots=True)
class RequestCounts:
    """One request's draft tokens as its source reported them."""

    id: str
    accepted: int
    drafted: int

    @property
    def rate(self) -> float | None:
        """accepted ÷ drafted, None when nothing was drafted."""
        return self.accepted / self.drafted if self.drafted else None


def checked(request_id: str, accepted: object, drafted: object, where: str) -> RequestCounts:
    """The counts when they are counts in range with accepted ≤ drafted; Invalid naming `where` else."""
    a = integer(accepted, f"{where}.accepted", 0, MAX_COUNTER)
    d = integer(drafted, f"{where}.drafted", 0, MAX_COUNTER)
    if a > d:
        raise Invalid(f"{where} accepted {a} of {d} drafted tokens")
    return RequestCounts(request_id[:MAX_ID], a, d)


@dataclass(frozen=True, slots=True)
class Outlier:
    request: RequestCounts
    expected: float  # the others' pooled rate p₀
    p_value: float  # the one-sided binomial tail
    reason: str  # LOW or HIGH


@dataclass
class RequestSpread:
    """Requests added one at a time; the histogram, pooled rate and outliers read at the end."""

    kept: list[RequestCounts] = field(default_factory=list)
    more: int = 0  # requests past MAX_KEPT: counted in nothing but this
    no_drafts: int = 0  # requests that drafted nothing (no rate to place)

    def add(self, request: RequestCounts) -> None:
        if len(self.kept) + self.no_drafts >= MAX_KEPT:
            self.more += 1
        elif request.drafted == 0:
            self.no_drafts += 1
        else:
            self.kept.append(request)

    def extend(self, requests: Iterable[RequestCounts]) -> None:
        for request in requests:
            self.add(request)

    @property
    def count(self) -> int:
        """Requests with drafts that the histogram places."""
        return len(self.kept)

    def pooled(self) -> float | None:
        """Σ accepted ÷ Σ drafted over the kept requests."""
        drafted = sum(r.drafted for r in self.kept)
        return sum(r.accepted for r in self.kept) / drafted if drafted else None

    def histogram(self) -> list[int]:
        """Requests per bin of acceptance: bin k holds [k/BINS, (k+1)/BINS), the last also 1.0."""
        bins = [0] * BINS
        for r in self.kept:
            bins[min(BINS - 1, r.accepted * BINS // r.drafted)] += 1
        return bins

    def fences(self) -> tuple[float, float]:
        """Tukey's fences of the kept requests' rates (needs two or more)."""
        q1, _, q3 = statistics.quantiles([r.accepted / r.drafted for r in self.kept], n=4, method="inclusive")
        return q1 - FENCE * (q3 - q1), q3 + FENCE * (q3 - q1)

    def outliers(self) -> list[Outlier]:
        """The requests far from the others' pooled rate (the binomial rule above), farthest first."""
        if len(self.kept) < MIN_REQUESTS:
            return []
        total_a = sum(r.accepted for r in self.kept)
        total_d = sum(r.drafted for r in self.kept)
        cut = LEVEL / (2 * len(self.kept))
        low_fence, high_fence = self.fences()
        found = []
        for r in self.kept:
            others = total_d - r.drafted
            if others <= 0:
                continue
            p0 = (total_a - r.accepted) / others
            rate = r.accepted / r.drafted
            if abs(rate - p0) < MIN_GAP or low_fence <= rate <= high_fence:
                continue
            reason = LOW if rate < p0 else HIGH
            tail = binomial_tail(r.accepted, r.drafted, p0, upper=reason == HIGH)
            if tail < cut:
                found.append(Outlier(r, p0, tail, reason))
        return sorted(found, key=lambda o: o.p_value)


def binomial_tail(k: int, n: int, p: float, *, upper: bool) -> float:
    """P(X ≥ k) (upper) or P(X ≤ k) of X ~ Binomial(n, p): exact, summed outward from k, while
    n·p·(1 − p) < NORMAL_FROM; beyond, the normal approximation with continuity correction."""
    if upper:
        return binomial_tail(n - k, n, 1.0 - p, upper=False)
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    var = n * p * (1.0 - p)
    if var >= NORMAL_FROM:
        z = (k + 0.5 - n * p) / math.sqrt(var)
        return 0.5 * math.erfc(-z / math.sqrt(2.0))
    log_term = (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                + k * math.log(p) + (n - k) * math.log1p(-p))
    term = math.exp(log_term)
    total = term
    ratio_num = 1.0 - p
    for j in range(k, max(0, k - MAX_TAIL_TERMS), -1):  # term(j − 1) = term(j) · j(1−p) / ((n−j+1)p)
        term *= j * ratio_num / ((n - j + 1) * p)
        total += term
        if term <= total * 1e-16:
            break
    return min(1.0, total)
