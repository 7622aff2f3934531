"""The stream's look per token status (and the round separator): one table for the token view and
the legend that explains it, so a sample in the legend is drawn exactly as the stream draws it."""

from __future__ import annotations

STATUS_CSS = {
    "accepted": "color: $token-accepted;",
    "rejected": "color: $token-rejected; text-style: strike dim;",
    "corrected": "color: $token-corrected; text-style: bold;",
    "bonus": "color: $token-bonus; text-style: bold;",
    "plain": "color: $foreground;",
    "discarded": "color: $text-muted; text-style: dim;",
    "undecided": "color: $foreground; text-style: underline;",
    "lost": "color: $token-rejected; text-style: dim;",
    "separator": "color: $text-muted;",
}


def status_classes(prefix: str) -> set[str]:
    """The component classes `<prefix>--<status>`, one per entry of STATUS_CSS."""
    return {f"{prefix}--{kind}" for kind in STATUS_CSS}


def status_rules(widget: str, prefix: str) -> str:
    """CSS rules giving `widget`'s component classes the stream's styles."""
    return "\n".join(f"{widget} > .{prefix}--{kind} {{ {css} }}" for kind, css in STATUS_CSS.items())
