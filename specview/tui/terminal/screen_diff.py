"""Send a terminal only the cells that change, as curses does: the bytes a frame costs on a slow link.

Textual redraws whole line regions: a token view line that gained three tokens is written
again from its left border, a gauge whose value changed is rewritten whole. `ScreenDiff`
keeps what the terminal shows (character and graphic state per cell), lets through the
cells that differ (with a cursor move where it skipped, and colour sequences reduced to
the change from the terminal's state, see `sgr_compact`) and drops the rest. Anything it
does not model exactly (erasing, scrolling, modes that move the cursor, hyperlinks, control
characters) passes through unchanged after the terminal's cursor and colours are put where
the stream had them, and the cells it may have touched are forgotten, so they are sent again.
The driver forgets everything when the terminal is resized or resumed (Ctrl-Z, fg).
"""

from __future__ import annotations

import re

from rich.cells import cell_len

from specview.tui.terminal.sgr_compact import DEFAULT, Sgr, apply, transition

_TOKEN = re.compile(
    r"(?P<sgr>\x1b\[(?P<params>[0-9;]*)m)"
    r"|(?P<move>\x1b\[(?P<row>[0-9]*)(?:;(?P<col>[0-9]*))?H)"
    r"|(?P<mode>\x1b\[\?[0-9;]*[hl])"
    r"|(?P<osc>\x1b\][^\x07\x1b]*(?:\x07|\x1b\\))"
    r"|(?P<other>\x1b(?:\[[0-?]*[ -/]*[@-~]|.)?)"
    r"|(?P<newline>\n)"
    r"|(?P<control>[\x00-\x09\x0b-\x1f\x7f])"
    r"|(?P<text>[^\x00-\x1f\x7f\x1b]+)",
    re.DOTALL,
)
# DEC private modes that change what is on the screen, or where the cursor is
_SCREEN_MODES = re.compile(r"\x1b\[\?(?:[0-9;]*;)?(?:47|1047|1048|1049|3|6|69)(?:;[0-9;]*)?[hl]")
# combining marks, zero-width spaces and joiners, variation selectors: they join the character before
_JOINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u200b-\u200f\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f"
_CLUSTER = re.compile(f"[^{_JOINING}][{_JOINING}]*|.", re.DOTALL)
_WIDE_TAIL = "\x00"  # marks the second cell of a double-width character (never text itself)
Cell = tuple[str, Sgr]


def _is_tail(cell: Cell | None) -> bool:
    return cell is not None and cell[0] == _WIDE_TAIL


class ScreenDiff:
    """Rewrites a full-screen app's output, write by write, into the changes the terminal needs."""

    def __init__(self, rows: int | None = None) -> None:
        self.reset(rows)

    def reset(self, rows: int | None = None) -> None:
        """Forget the screen (a resize, a resume, a new alternate screen): everything is sent again.

        `rows` is the terminal's height: a line feed on the last row scrolls, elsewhere it only moves.
        """
        self.rows = rows
        self.cells: dict[tuple[int, int], Cell] = {}
        self.wanted: Sgr | None = DEFAULT  # the graphic state the stream asked for so far
        self.terminal: Sgr | None = DEFAULT  # the terminal's (None: unknown)
        self.cursor: tuple[int, int] | None = None  # where the stream's next character goes
        self.term_cursor: tuple[int, int] | None = None  # where the terminal's cursor is
        self.linked = False  # inside an OSC 8 hyperlink: its text is sent as it is

    # helpers -------------------------------------------------------------------
    def _settle(self, out: list[str]) -> None:
        if self.wanted is not None:
            out.append(transition(self.terminal, self.wanted))
            self.terminal = self.wanted

    def _sync_cursor(self, out: list[str]) -> None:
        if self.cursor is not None and self.term_cursor != self.cursor:
            x, y = self.cursor
            out.append(f"\x1b[{y + 1};{x + 1}H")
            self.term_cursor = self.cursor

    def _pass(self, out: list[str], raw: str) -> None:
        """Send `raw` from exactly the stream's state (cursor and colours)."""
        self._sync_cursor(out)
        self._settle(out)
        out.append(raw)

    def _forget_row_from(self, x: int, y: int) -> None:
        for key in [k for k in self.cells if k[1] == y and k[0] >= x]:
            del self.cells[key]

    # the stream ----------------------------------------------------------------
    def compact(self, data: str) -> str:
        """The part of `data` the terminal needs; it ends in the graphic state `data` ends in."""
        out: list[str] = []
        tokens = list(_TOKEN.finditer(data))
        for n, match in enumerate(tokens):
            kind = match.lastgroup
            raw = match.group(0)
            if kind == "sgr":
                self._sgr(out, match.group("params"), raw)
            elif kind == "move":
                row, col = match.group("row"), match.group("col")
                self.cursor = (int(col or 1) - 1, int(row or 1) - 1)
            elif kind == "text":
                self._text(out, raw)
            elif kind == "newline":
                nxt = tokens[n + 1].lastgroup if n + 1 < len(tokens) else None
                above_bottom = self.cursor is not None and self.rows is not None and self.cursor[1] < self.rows - 1
                if nxt == "move" and above_bottom:
                    continue  # it only moves the cursor, and the move after it puts it elsewhere anyway
                self._pass(out, raw)
                if not above_bottom:  # it may have scrolled the screen
                    self.cells.clear()
                self.cursor = self.term_cursor = None
            elif kind == "mode" and not _SCREEN_MODES.fullmatch(raw):
                self._pass(out, raw)  # cursor shown or hidden, mouse, sync…: the screen stays
            elif kind == "osc":
                self._pass(out, raw)
                if raw.startswith("\x1b]8;"):
                    self.linked = not raw.rstrip("\x07\\\x1b").endswith(";")
            elif kind == "control" and raw == "\x07":
                self._pass(out, raw)  # a bell moves nothing
            elif kind == "control" and raw in ("\r", "\b"):
                self._pass(out, raw)  # the cursor moves; what is on the screen stays
                self.cursor = self.term_cursor = None
            else:  # erase, scroll, save/restore, screen modes, other controls: not modelled
                self._pass(out, raw)
                self.cells.clear()
                self.cursor = self.term_cursor = None
        self._settle(out)
        return "".join(out)

    def _sgr(self, out: list[str], params: str, raw: str) -> None:
        base = self.wanted
        if base is None and (params in ("", "0") or params.startswith("0;")):
            base = DEFAULT
        after = None if base is None else apply(base, params)
        if after is None:  # a sequence not modelled: sent as it is, the state unknown until a reset
            self._pass(out, raw)
            self.terminal = None
        self.wanted = after

    def _text(self, out: list[str], text: str) -> None:
        if self.cursor is None or self.wanted is None or self.linked:
            # where it lands, or how it looks, is not modelled: send it and forget those cells
            self._pass(out, text)
            if self.cursor is None:
                self.cells.clear()
            else:
                self._forget_row_from(self.cursor[0], self.cursor[1])
            self.cursor = self.term_cursor = None
            return
        state = self.wanted
        x, y = self.cursor
        cells = self.cells
        # unchanged cells skipped right after the terminal's cursor: sent again when cheaper than a move
        gap: list[str] | None = []
        gap_width = 0
        for cluster in _CLUSTER.findall(text):
            width = cell_len(cluster)
            if width <= 0:  # a lone zero-width character: it joins whatever is there; send it
                self._pass(out, cluster)
                cells.pop((x - 1, y), None)
                self.term_cursor = None
                continue
            cell = (cluster, state)
            same = cells.get((x, y)) == cell and (width == 1 or cells.get((x + 1, y)) == (_WIDE_TAIL, state))
            if same:
                if gap is not None and self.term_cursor == (x - gap_width, y) and state == self.terminal:
                    gap.append(cluster)
                    gap_width += width
                else:
                    gap = None  # not right after the terminal's cursor, or in another look: move instead
            else:
                if self.term_cursor != (x, y):
                    move = f"\x1b[{y + 1};{x + 1}H"
                    again = "".join(gap) if gap else ""
                    out.append(again if again and len(again.encode()) < len(move) else move)
                gap, gap_width = [], 0
                out.append(transition(self.terminal, state))
                self.terminal = state
                out.append(cluster)
                if _is_tail(cells.get((x, y))):
                    cells.pop((x - 1, y), None)  # overwriting half of a wide character erases it
                cells[(x, y)] = cell
                if width == 2:
                    if not _is_tail(cells.get((x + 1, y))):
                        cells.pop((x + 2, y), None)  # its tail may cut the next wide character
                    cells[(x + 1, y)] = (_WIDE_TAIL, state)
                elif _is_tail(cells.get((x + 1, y))):
                    cells.pop((x + 1, y), None)
                self.term_cursor = (x + width, y)
            x += width
        self.cursor = (x, y)

