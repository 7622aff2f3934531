"""Any OpenAI-compatible server: every chunk with text is one plain token, timing only."""

from __future__ import annotations

from typing import Any

from specview.backends.remote.dialect import RequestSettings, RoundMaker, chunk_text, openai_request
from specview.backends.remote.server_kind import ServerKind
from specview.core.backend import Note
from specview.core.events import Round


class GenericDialect:
    """Every token a plain round: the only thing every server promises."""

    name = "generic"

    def __init__(self, settings: RequestSettings) -> None:
        self.settings = settings
        self.maker = RoundMaker()

    def request(self) -> tuple[str, dict[str, Any]]:
        return openai_request(self.settings)

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        """One chunk with text counts as one token."""
        text = chunk_text(event)
        return [self.maker.plain(text, t, inferred=True)] if text else []

    def finish(self, t: float) -> list[Round]:
        return []

    def exact_rounds(self) -> list[Round] | None:
        return None

    def missing_statistics(self) -> Note | None:
        return None


GENERIC = ServerKind()
