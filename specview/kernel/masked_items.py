"""Secrets masked out of what a backend produces, before anything reaches a sink or a screen:
held rounds (a secret may span two) released before what closes them."""

from __future__ import annotations

from specview.boundary.secrets import known_secrets
from specview.boundary.stream_mask import RoundMasker, mask_rounds
from specview.kernel.events import Calibration, Reconcile, StreamItem
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.totals import CrossChecked, Totals


def masker() -> RoundMasker | None:
    """A stream masker when this process knows a secret (a remote key or URL credentials)."""
    secrets = known_secrets()
    return RoundMasker(secrets) if secrets else None


def masked(masker: RoundMasker | None, item: StreamItem) -> list[StreamItem]:
    """What to deliver for one produced item: masked, with held rounds released before a reconcile
    or a request's totals (they close the rounds before them).

    A calibration or a cross-check carries no text and goes through at once.
    """
    if masker is None or isinstance(item, Calibration | CrossChecked | GammaChoice):
        return [item]
    if isinstance(item, Totals):
        return [*masker.flush(), item]
    if isinstance(item, Reconcile):
        rounds = tuple(mask_rounds(list(item.rounds), masker.pattern))
        return [*masker.flush(), Reconcile(item.first_index, rounds)]
    return list(masker.feed(item))
