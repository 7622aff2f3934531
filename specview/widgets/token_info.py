"""Details of the selected token: status, position, p(x), q(x), min(1, p/q)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from specview.core.events import TokenEvent, TokenStatus
from specview.core.text import sanitize

_WHAT = {
    TokenStatus.ACCEPTED: "accepted draft",
    TokenStatus.REJECTED: "rejected draft",
    TokenStatus.CORRECTED: "corrected (target's resample)",
    TokenStatus.BONUS: "bonus (all drafts passed)",
    TokenStatus.PLAIN: "plain (no draft)",
}


def describe(token: TokenEvent) -> str:
    """One line about a token, as the info panel shows it."""
    parts = [repr(sanitize(token.text, 200)), _WHAT[token.status]]
    if token.position is not None:
        parts.append(f"position {token.position + 1}")
    if token.p is not None:
        parts.append(f"p {token.p:.3f}")
    if token.q is not None:
        parts.append(f"q {token.q:.3f}")
    if token.p is not None and token.q:
        parts.append(f"min(1, p/q) {min(1.0, token.p / token.q):.3f}")
    if token.inferred:
        parts.append("status inferred")
    return " · ".join(parts)


class TokenInfo(Static):
    """Shows the selected token, or a hint."""

    DEFAULT_CSS = "TokenInfo { height: 1; color: $text-muted; padding: 0 1; }"
    def __init__(self, hint: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.hint = hint

    def on_mount(self) -> None:
        self.update(Text(self.hint))

    def show(self, token: TokenEvent | None) -> None:
        self.update(Text(self.hint) if token is None else Text(describe(token), no_wrap=True, overflow="ellipsis"))
