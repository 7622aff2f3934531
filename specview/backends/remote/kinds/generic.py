"""Any OpenAI-compatible server: every chunk with text is one plain token, timing only."""

from __future__ import annotations

from typing import Any

from specview.backends.remote.dialect import Dialect, RequestSettings, RoundMaker, chunk_text
from specview.backends.remote.server_kind import ServerKind
from specview.kernel.events import Round

__all__ = ["GENERIC"]  # the unit the plugin surface registers (specview/plugins/)


class GenericDialect(Dialect):
    """Every token a plain round: the only thing every server promises."""

    name = "generic"

    def __init__(self, settings: RequestSettings) -> None:
        super().__init__(settings)
        self.maker = RoundMaker()

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        """One chunk with text counts as one token."""
        text = chunk_text(event)
        return [self.maker.plain(text, t, inferred=True)] if text else []


GENERIC = ServerKind()
