"""An app to which a test adds line filters while it runs, through the public `get_line_filters` that
every widget asks (Textual keeps its own list private)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import App
from textual.filter import LineFilter


class AddedLineFilters(App[None]):
    """An app whose line filters are Textual's, then those in `added_filters` (append one mid-run)."""

    def __init__(self) -> None:
        super().__init__()
        self.added_filters: list[LineFilter] = []

    def get_line_filters(self) -> Sequence[LineFilter]:
        return [*super().get_line_filters(), *self.added_filters]
