"""The ratios a watch window derives from its counts, each named for what it divides (the model's
docstring), and the note for an accept-rate gauge whose divisor moved."""

from __future__ import annotations

from specview.kernel.backend import Note


def draft_yield(draft_tokens: int, accepted: int) -> float | None:
    """accepted ÷ drafted (llama.cpp's "rate")."""
    return accepted / draft_tokens if draft_tokens > 0 else None


def mean_accepted_length(drafts: int, accepted: int) -> float | None:
    """Tokens per verify step, bonus or correction included: 1 + accepted ÷ drafts."""
    return 1.0 + accepted / drafts if drafts > 0 else None


def draft_share(accepted: int, generated: int | None) -> float | None:
    """accepted ÷ generated tokens (None without generated tokens)."""
    return accepted / generated if generated else None


def marginal_rates(per_position: tuple[int, ...], drafts: int) -> tuple[float, ...]:
    """Each position's accepted count ÷ the drafts (() without drafts)."""
    return tuple(n / drafts for n in per_position) if drafts > 0 else ()


def width_notes(before: float | None, now: float | None) -> tuple[Note, ...]:
    """A note when the configured width an accept-rate gauge divides by varied over the window
    (changed, or differs between ranks: a mean that is not whole): the gauge is then not accepted
    ÷ drafted."""
    if now is None or ((now == before or before is None) and float(now).is_integer()):
        return ()
    return (Note("width_varies", {"before": f"{before:g}" if before is not None else "—", "now": f"{now:g}"}),)
