"""What a gauge reads in the monitor (`specview watch`): a server's counters over one poll interval.

The kernel's own type, so that the gauge table (gauges.py) reads the monitor's numbers without
importing the feature that scrapes them: features/watch/model's WatchSample is one.
"""

from __future__ import annotations

from typing import Protocol


class WatchedInterval(Protocol):
    """Rates and ratios of one interval between two scrapes (None: not measured in it)."""

    @property
    def drafts_per_s(self) -> float | None:
        """Drafts (verify steps) per second."""

    @property
    def draft_tokens_per_s(self) -> float | None:
        """Tokens drafted per second."""

    @property
    def accepted_per_s(self) -> float | None: ...

    @property
    def tokens_per_s(self) -> float | None: ...

    @property
    def draft_yield(self) -> float | None: ...

    @property
    def alpha(self) -> float | None: ...

    @property
    def alpha_basis(self) -> str | None:
        """How α's verified drafts were counted (catalog `measured.alpha_basis.<value>`)."""

    @property
    def mean_accepted_length(self) -> float | None: ...

    @property
    def active(self) -> float | None:
        """Requests running on the server (its own gauge), where it says."""
