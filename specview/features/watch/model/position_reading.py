"""Which reading of the per-position counts the bars show: marginal or conditional.

Servers publish, per draft position k, the drafts whose token k was accepted. Two readings:
- marginal, accepted(k) ÷ drafts: the share of drafts that got past position k (vLLM's
  dashboard panel and its log line);
- conditional, accepted(k) ÷ accepted(k − 1): P(k accepted | k − 1 accepted), what γ's choice
  rests on — exact only when every draft was as long as the series. Where drafts vary in length
  (llama-server's n-gram drafts what it finds), a draft that ended at k − 1 counts in the
  denominator with no position k to verify, so the quotient understates every position but the
  first, and mixing exact and understated positions shows "1.00" beside "0.50" for no reason.
The bars therefore default to the marginal reading when drafts vary in length (the sample's
`per_position_bound`), the conditional one otherwise, and say which they show.
"""

from __future__ import annotations

from specview.features.watch.model import WatchSample

MARGINAL = "marginal"
CONDITIONAL = "conditional"


def reading_of(sample: WatchSample | None, otherwise: str = CONDITIONAL) -> str:
    """MARGINAL where the sample's drafts vary in length, else CONDITIONAL; `otherwise` for a
    sample without drafts (a monitor keeps the reading it showed: the heading does not flip
    while the server is idle)."""
    if sample is None or sample.drafts <= 0:
        return otherwise
    return MARGINAL if sample.per_position_bound else CONDITIONAL


def position_reading(sample: WatchSample | None,
                     otherwise: str = CONDITIONAL) -> tuple[str, tuple[float | None, ...]]:
    """The reading the bars show for this sample and its values, position 0 first (`otherwise`:
    the reading of a sample without drafts)."""
    if sample is None:
        return otherwise, ()
    reading = reading_of(sample, otherwise)
    if reading == MARGINAL:
        return reading, sample.per_position_marginal
    return reading, sample.per_position_acceptance
