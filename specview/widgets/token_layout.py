"""The token view's model: tokens wrapped into lines of a given cell width (no Textual here).

A line is a list of pieces, (token, start, end): part of one token's display text, where
`token` is an absolute index (it survives pruning the oldest tokens). Appending places only
the new tokens; pruning drops whole lines from the front without wrapping the rest again;
`drop_tail` takes the newest tokens back (step mode's provisional drafts) without wrapping
anything else. A flat-out producer adds thousands of tokens a second, so the common case (a
token that fits on the current line) is a few dictionary lookups.

Two display options, each a full rewrap when changed: statuses in `hidden` take no room (their
tokens stay, so selection indices hold; a tree's lost branches are hidden until asked for), and
`separators` puts a thin bar before the first token of every round (a round ends with its
corrected, bonus or plain token).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len

from specview.boundary.bounds import MAX_TOKEN_SHOWN
from specview.boundary.text import sanitize
from specview.kernel.events import MARKS, NOT_EMITTED, TokenEvent, TokenStatus

__all__ = ["MARKS", "ROUND_SEPARATOR", "TokenLayout", "display", "known_width", "width_of"]
ROUND_SEPARATOR = "│"
# tuples, not sets: `in` on a few enum members tests identity first, where a set hashes each
# member through Enum's Python-level __hash__ (every token of a flat-out stream asks both)
ROUND_ENDS = (TokenStatus.CORRECTED, TokenStatus.BONUS, TokenStatus.PLAIN)
Piece = tuple[int, int, int]  # absolute token index, [start, end) in its display text
_CACHE_LIMIT = 65_536  # distinct token texts remembered (display form, cell width)
_display_cache: dict[tuple[str, str], str] = {}
_width_cache: dict[str, int] = {}
known_width = _width_cache.get  # a text's cells if `width_of` has seen it (cleared, never replaced)


def display(event: TokenEvent) -> str:
    """The token's text as drawn: sanitised, with its mark (after any leading whitespace)."""
    key = (event.text, event.status._value_)  # the value's str hash is cached; Enum's __hash__ is Python code
    shown = _display_cache.get(key)
    if shown is None:
        shown = _display(event.text, event.status)
        if len(_display_cache) >= _CACHE_LIMIT:
            _display_cache.clear()
        _display_cache[key] = shown
    return shown


def _display(text: str, status: TokenStatus) -> str:
    # A token from outside may be huge (a hostile server's 300 kB "token"): shown cut, with a
    # mark saying how much; the event (and so the recording) keeps all of it.
    body = sanitize(text, MAX_TOKEN_SHOWN)
    if status in NOT_EMITTED:  # not part of the text: a line break in it would break the text's lines
        body = body.replace("\n", "⏎")
    pre, post = MARKS.get(status, ("", ""))
    if not pre and not post:
        return body
    stripped = body.lstrip(" \n")
    lead = body[: len(body) - len(stripped)]
    return lead + pre + stripped + post


def width_of(text: str) -> int:
    """Terminal cells `text` takes (cached: token texts repeat)."""
    width = _width_cache.get(text)
    if width is None:
        width = cell_len(text)
        if len(_width_cache) >= _CACHE_LIMIT:
            _width_cache.clear()
        _width_cache[text] = width
    return width


class TokenLayout:
    """Tokens, their display texts, and the lines they wrap into at `width` cells."""

    def __init__(self, width: int = 1, *, hidden: frozenset[TokenStatus] = frozenset({TokenStatus.LOST}),
                 separators: bool = False) -> None:
        self.width = max(width, 1)
        self.hidden = hidden
        self._hidden = tuple(hidden)
        self.separators = separators
        self.tokens: list[TokenEvent] = []
        self.texts: list[str] = []
        self.starts_round: list[bool] = []  # per token: the first token of a round
        self.base = 0  # absolute index of tokens[0]
        self.lines: list[list[Piece]] = [[]]
        # per token (relative index): the current line before it was placed, counted from the first line
        # since the last full wrap (`line_of` gives the index into `lines`: pruning then moves no number)
        self.token_line: list[int] = []
        self._line_base = 0  # lines pruned from the front since the last full wrap
        self.token_col: list[int] = []  # per token: the current line's width before it was placed
        self._cur_width = 0

    def text_of(self, event: TokenEvent, starts_round: bool) -> str:
        """What one token takes on screen under the display options."""
        if event.status in self._hidden:
            return ""
        shown = display(event)
        return ROUND_SEPARATOR + shown if self.separators and starts_round else shown

    def separated(self, token: int) -> bool:
        """Whether the token (relative index) is drawn after a round separator."""
        return self.separators and self.starts_round[token] and self.tokens[token].status not in self._hidden

    def set_display(self, *, hidden: frozenset[TokenStatus] | None = None, separators: bool | None = None) -> None:
        """Change what is shown (hidden statuses, round separators) and wrap everything again."""
        if hidden is not None:
            self.hidden = hidden
            self._hidden = tuple(hidden)
        if separators is not None:
            self.separators = separators
        self.texts = [self.text_of(t, s) for t, s in zip(self.tokens, self.starts_round, strict=True)]
        self.rewrap(self.width)

    @property
    def line_count(self) -> int:
        return len(self.lines) if self.lines[-1] else len(self.lines) - 1

    def append(self, events: Iterable[TokenEvent]) -> int:
        """Place new tokens; returns the first line that changed."""
        events = list(events)
        lines = self.lines
        first_dirty = len(lines) - 1
        tokens, texts, starts_round = self.tokens, self.texts, self.starts_round
        token_line, token_col = self.token_line, self.token_col
        width, separators, hidden = self.width, self.separators, self._hidden
        shown_get, width_get = _display_cache.get, _width_cache.get
        line_base = self._line_base
        line, y, col = lines[-1], len(lines) - 1 + line_base, self._cur_width
        index = self.base + len(tokens)
        ends_round = bool(tokens) and tokens[-1].status in ROUND_ENDS  # (the very first token needs no bar)
        # One pass with the state in locals: a flat-out stream puts thousands of tokens a second
        # through here, nearly all of them the common case (a token that fits on the line).
        for event in events:
            status = event.status
            starts, ends_round = ends_round, status in ROUND_ENDS
            if status in hidden:
                text = ""
            else:
                text = shown_get((event.text, status._value_)) or display(event)
                if separators and starts:
                    text = ROUND_SEPARATOR + text
            texts.append(text)
            starts_round.append(starts)
            token_line.append(y)
            token_col.append(col)
            cells = width_get(text)
            if cells is None:
                cells = width_of(text)
            if text and col + cells <= width and "\n" not in text:  # the common case
                line.append((index, 0, len(text)))
                col += cells
            elif text and cells <= width and "\n" not in text:  # the next: it starts a line (as _place does)
                line = [(index, 0, len(text))]
                lines.append(line)
                y += 1
                col = cells
            else:
                self._cur_width = col
                self._place(index, text)
                line, y, col = lines[-1], len(lines) - 1 + line_base, self._cur_width
            index += 1
        self._cur_width = col
        tokens.extend(events)
        return first_dirty

    def rewrap(self, width: int) -> None:
        """Wrap every token again at `width` cells."""
        self.width = max(width, 1)
        self.lines, self.token_line, self.token_col, self._cur_width, self._line_base = [[]], [], [], 0, 0
        for i, text in enumerate(self.texts):
            self.token_line.append(len(self.lines) - 1)
            self.token_col.append(self._cur_width)
            self._place(self.base + i, text)

    def drop_tail(self, count: int) -> int:
        """Take back the newest `count` tokens; returns the first line that changed.

        Tokens before them keep their places: the layout returns to exactly where it was before
        the first dropped token was placed.
        """
        count = min(count, len(self.tokens))
        if count <= 0:
            return len(self.lines) - 1
        first = len(self.tokens) - count
        y, col = self.line_of(first), self.token_col[first]
        cut = self.base + first
        del self.lines[y + 1 :]
        self.lines[y] = [piece for piece in self.lines[y] if piece[0] < cut]
        self._cur_width = col
        for column in (self.tokens, self.texts, self.starts_round, self.token_line, self.token_col):
            del column[first:]
        return y

    def prune(self, keep: int) -> int:
        """Drop whole lines from the front until at most about `keep` tokens remain.

        Returns how many lines were dropped (0: nothing to do). Every line index shifts.
        """
        excess = min(len(self.tokens) - keep, len(self.tokens) - 1)  # the newest token's line stays
        if excess <= 0:
            return 0
        drop_lines = self.line_of(excess)
        if drop_lines == 0:
            return 0
        kept = self.lines[drop_lines:]
        first = next((piece[0] for line in kept for piece in line), self.base + len(self.tokens))
        drop_tokens = first - self.base
        del self.lines[:drop_lines]
        del self.tokens[:drop_tokens]
        del self.texts[:drop_tokens]
        del self.starts_round[:drop_tokens]
        del self.token_col[:drop_tokens]
        del self.token_line[:drop_tokens]  # the rest keep their numbers: one moved base, not 16,000 new ints
        self._line_base += drop_lines
        self.base = first
        return drop_lines

    def line_of(self, token: int) -> int:
        """The line (index into `lines`) that was current before the token (relative index) was
        placed: where it starts, or the line before when it began a new one (0 once that was pruned)."""
        return max(0, self.token_line[token] - self._line_base)

    def _place(self, index: int, text: str) -> None:
        """Wrap one token's text from the current position: a piece that fits a line is not
        split; a longer one fills lines. Linear in the text's length (each character's width
        is taken once), so a very long token costs no more than the same text in many tokens."""
        width = self.width
        base = 0
        for n, part in enumerate(text.split("\n")):
            if n:
                self._new_line()
            # printable ASCII is one cell a character: no width table (most text that wraps)
            widths = [1] * len(part) if part.isascii() and part.isprintable() else [cell_len(ch) for ch in part]
            remaining = sum(widths)
            pos = 0
            while pos < len(part):
                room = width - self._cur_width
                if remaining <= room:
                    self._add((index, base + pos, base + len(part)), remaining)
                    break
                if self._cur_width and remaining <= width:
                    self._new_line()
                    continue
                take, used = 0, 0
                while pos + take < len(part) and used + widths[pos + take] <= room:
                    used += widths[pos + take]
                    take += 1
                if take == 0 and self._cur_width:
                    self._new_line()
                    continue
                if take == 0:  # one character wider than the whole line: place it anyway
                    take, used = 1, widths[pos]
                self._add((index, base + pos, base + pos + take), used)
                self._new_line()
                pos += take
                remaining -= used
            base += len(part) + 1

    def _add(self, piece: Piece, width: int) -> None:
        self.lines[-1].append(piece)
        self._cur_width += width

    def _new_line(self) -> None:
        self.lines.append([])
        self._cur_width = 0

    # queries -------------------------------------------------------------
    def holds(self, status: TokenStatus) -> bool:
        """Whether any token kept has this status (a tree run's lost branches, say)."""
        return any(t.status is status for t in self.tokens)

    def line_has(self, y: int, token: int) -> bool:
        """Whether line y shows part of the token with relative index `token`."""
        absolute = self.base + token
        return any(piece[0] == absolute for piece in self.lines[y])

    def token_at(self, x: int, y: int) -> int | None:
        """Relative index of the token under cell x of line y, if any."""
        if not 0 <= y < len(self.lines):
            return None
        col = 0
        for token, start, end in self.lines[y]:
            col += cell_len(self.texts[token - self.base][start:end])
            if x < col:
                return token - self.base
        return None

    def line_text(self, y: int) -> str:
        """Line y as text with its marks; rejected drafts struck through with U+0336 (survives a paste)."""
        if not 0 <= y < len(self.lines):
            return ""
        out = []
        for token, start, end in self.lines[y]:
            piece = self.texts[token - self.base][start:end]
            if self.tokens[token - self.base].status is TokenStatus.REJECTED:
                piece = "".join(ch if ch.isspace() else ch + "\u0336" for ch in piece)
            out.append(piece)
        return "".join(out)

    def plain_text(self) -> str:
        """The emitted text as shown (rejected and discarded drafts left out)."""
        return "".join(sanitize(t.text) for t in self.tokens if t.emitted)
