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


def reading_of(sample: WatchSample | None) -> str:
    """MARGINAL where the sample's drafts vary in length, else CONDITIONAL."""
    return MARGINAL if sample is not None and sample.per_position_bound else CONDITIONAL


def marginal_acceptance(per_position: tuple[int, ...], drafts: int) -> tuple[float | None, ...]:
    """accepted(k) ÷ drafts per position (None without drafts)."""
    return tuple(n / drafts if drafts > 0 else None for n in per_position)


def position_reading(sample: WatchSample | None) -> tuple[str, tuple[float | None, ...]]:
    """The reading the bars show for this sample and its values, position 0 first."""
    if sample is None:
        return CONDITIONAL, ()
    reading = reading_of(sample)
    if reading == MARGINAL:
        return reading, marginal_acceptance(sample.per_position, sample.drafts)
    return reading, sample.per_position_acceptance
