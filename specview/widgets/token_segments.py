"""A token view's lines as segments: each token in its status's style (theme variables, kept until
the styles change), a round's bar in its own, runs of one style joined."""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from textual.widget import Widget

from specview.kernel.events import TokenStatus
from specview.widgets.token_layout import TokenLayout, known_width, width_of

Finish = Callable[[Style], Style | None]


def unfinished(style: Style) -> Style:
    return style


class TokenSegments:
    """The styles of one view's tokens, and its lines made of them."""

    def __init__(self, view: Widget) -> None:
        self._view = view
        self._styles: dict[tuple[TokenStatus, bool, bool], Style] = {}
        self._base: Style | None = None
        self._separator: Style | None = None
        # Finished looks for the finisher in use: (status value, inferred, selected) → style, each
        # distinct style one object (`_canon`), so a run of one look is found by identity alone.
        # Keyed by the status's value: Enum's __hash__ is Python code, and a line asks once a token.
        self._finisher: object = None
        self._looks: dict[tuple[str, bool, bool], Style | None] = {}
        self._canon: dict[Style, Style] = {}

    def clear(self) -> None:
        """Forget the styles (the view's changed)."""
        self._styles.clear()
        self._base = None
        self._separator = None
        self._finisher = None

    def base(self) -> Style:
        """The view's own style (rich_style walks the DOM; it only changes with the styles)."""
        if self._base is None:
            self._base = self._view.rich_style
        return self._base

    def style(self, status: TokenStatus, inferred: bool, selected: bool) -> Style:
        key = (status, inferred, selected)
        style = self._styles.get(key)
        if style is None:
            view = self._view
            style = self.base() + view.get_component_rich_style(f"token--{status.value}", partial=True)
            if inferred:
                style += Style(italic=True)
            if selected:
                style += view.get_component_rich_style("token--selected", partial=True)
            self._styles[key] = style
        return style

    def separator(self) -> Style:
        if self._separator is None:
            self._separator = self.base() + self._view.get_component_rich_style("token--separator", partial=True)
        return self._separator

    def _looks_for(self, finish: Finish) -> dict[tuple[str, bool, bool], Style | None]:
        owner = getattr(finish, "__self__", finish)  # a box's bound method is a new object each time
        if owner is not self._finisher:
            self._finisher, self._looks, self._canon = owner, {}, {}
        return self._looks

    def _look(self, status: TokenStatus, inferred: bool, selected: bool, finish: Finish) -> Style | None:
        finished = finish(self.style(status, inferred, selected))
        if finished is not None:
            finished = self._canon.setdefault(finished, finished)
        self._looks[(status._value_, inferred, selected)] = finished
        return finished

    def line(self, layout: TokenLayout, y: int, selected: int | None, finish: Finish) -> tuple[list[Segment], int]:
        """Line y's segments (`selected`: the selected token's relative index), their styles passed
        through `finish`, and the cells they take."""
        tokens, texts, first = layout.tokens, layout.texts, layout.base
        chosen = -1 if selected is None else first + selected
        looks = self._looks_for(finish)
        looks_get = looks.get
        separators = layout.separators
        # Runs of tokens in one style become one segment (what Segment.simplify would make of them,
        # built as they come): far less for the compositor to chop, and no Segment a token.
        segments: list[Segment] = []
        run: list[str] = []
        run_style: Style | None = None
        cells = 0
        for token, start, end in layout.lines[y]:
            event = tokens[token - first]
            status, inferred, picked = event.status, event.inferred, token == chosen
            style = looks_get((status._value_, inferred, picked))
            if style is None:
                style = self._look(status, inferred, picked, finish)
            text = texts[token - first]
            piece = text if start == 0 and end == len(text) else text[start:end]
            width = known_width(piece)
            cells += width if width is not None else width_of(piece)
            if start == 0 and separators and layout.separated(token - first):  # the round's bar, in its own style
                bar = looks_get(("", False, False))
                if bar is None:
                    bar = finish(self.separator())
                    bar = looks[("", False, False)] = self._canon.setdefault(bar, bar) if bar is not None else bar
                if run and bar is run_style:
                    run.append(piece[:1])
                else:
                    if run:
                        segments.append(Segment("".join(run), run_style))
                    run, run_style = [piece[:1]], bar
                piece = piece[1:]
            if run and style is run_style:
                run.append(piece)
            else:
                if run:
                    segments.append(Segment("".join(run), run_style))
                run, run_style = [piece], style
        if run:
            segments.append(Segment("".join(run), run_style))
        return segments, cells
