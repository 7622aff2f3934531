"""Secrets masked out of what a backend produces, before anything reaches a sink or a screen:
held rounds (a secret may span two) released before what closes them."""

from __future__ import annotations

from specview.boundary.secrets import known_secrets
from specview.boundary.stream_mask import RoundMasker
from specview.kernel.events import StreamItem
from specview.kernel.stream_kinds import kind_of


def masker() -> RoundMasker | None:
    """A stream masker when this process knows a secret (a remote key or URL credentials)."""
    secrets = known_secrets()
    return RoundMasker(secrets) if secrets else None


def masked(masker: RoundMasker | None, item: StreamItem) -> list[StreamItem]:
    """What to deliver for one produced item: masked, with held rounds released before a reconcile
    or a request's totals (they close the rounds before them); what carries no text goes through
    at once (each kind's rule: kernel/stream_kinds.py)."""
    return [item] if masker is None else kind_of(item).mask(masker, item)
