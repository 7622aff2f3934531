"""Say each colour change once: SGR sequences rewritten as the difference from the terminal's state.

Textual writes every segment as `ESC[<attributes;fg;bg>m text ESC[0m`, so a line of ten
coloured runs repeats the background ten times and resets ten times; colour sequences are
most of the bytes a frame costs (70 % measured on the live view). `SgrCompactor` follows the
state the terminal is in and the state the next text wants, and writes only what differs
(or a reset and the whole state, when that is shorter) just before text. Cursor moves and
line feeds leave colours alone, so they pass without settling the state; anything else
(erase, modes, OSC) is preceded by the exact state Textual asked for. Each write ends in the
state Textual left, so what follows it is unchanged. The screen a terminal shows is the same
cell for cell (tested with a terminal emulator on random frames).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_TOKEN = re.compile(
    r"(?P<sgr>\x1b\[(?P<params>[0-9;]*)m)"
    r"|(?P<move>\x1b\[[0-9]*(?:;[0-9]*)?H)"
    r"|(?P<other>\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|.)?)"
    r"|(?P<text>[^\x1b]+)",
    re.DOTALL,
)
_OFF = {1: 22, 2: 22, 3: 23, 4: 24, 21: 24, 5: 25, 6: 25, 7: 27, 8: 28, 9: 29, 53: 55}
_ATTRS = frozenset(_OFF)


@dataclass(frozen=True, slots=True)
class Sgr:
    """Graphic state: attributes on, and the foreground and background as their SGR codes."""

    attrs: frozenset[int] = frozenset()
    fg: tuple[int, ...] = ()
    bg: tuple[int, ...] = ()

    def codes(self) -> list[int]:
        return [*sorted(self.attrs), *self.fg, *self.bg]


DEFAULT = Sgr()


@lru_cache(maxsize=8192)  # a screen uses few styles: each (state, sequence) pair is worked out once
def apply(state: Sgr, params: str) -> Sgr | None:
    """`state` after `ESC[<params>m`; None when a parameter is not one this class follows."""
    values = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    attrs, fg, bg = set(state.attrs), state.fg, state.bg
    i = 0
    while i < len(values):
        code = values[i]
        if code == 0:
            attrs, fg, bg = set(), (), ()
        elif code in _ATTRS:
            attrs.add(code)
        elif code in (22, 23, 24, 25, 27, 28, 29, 55):
            attrs -= {a for a, off in _OFF.items() if off == code}
        elif 30 <= code <= 37 or 90 <= code <= 97:
            fg = (code,)
        elif 40 <= code <= 47 or 100 <= code <= 107:
            bg = (code,)
        elif code == 39:
            fg = ()
        elif code == 49:
            bg = ()
        elif code in (38, 48) and i + 1 < len(values) and values[i + 1] in (2, 5):
            size = 3 if values[i + 1] == 5 else 5
            colour = tuple(values[i:i + size])
            if len(colour) != size:
                return None
            if code == 38:
                fg = colour
            else:
                bg = colour
            i += size
            continue
        else:
            return None
        i += 1
    return Sgr(frozenset(attrs), fg, bg)


@lru_cache(maxsize=8192)
def transition(current: Sgr | None, wanted: Sgr) -> str:
    """The shortest SGR sequence taking the terminal from `current` (None: unknown) to `wanted`."""
    if current == wanted:
        return ""
    full = "\x1b[" + ";".join(map(str, [0, *wanted.codes()])) + "m"
    if current is None:
        return full
    offs = sorted({_OFF[a] for a in current.attrs - wanted.attrs})
    cleared = {a for a in current.attrs if _OFF[a] in offs}  # 22 clears bold and dim alike
    codes = [*offs, *sorted((wanted.attrs - current.attrs) | (wanted.attrs & cleared))]
    if wanted.fg != current.fg:
        codes += wanted.fg or (39,)
    if wanted.bg != current.bg:
        codes += wanted.bg or (49,)
    step = "\x1b[" + ";".join(map(str, codes)) + "m"
    return step if len(step) < len(full) else full


class SgrCompactor:
    """Rewrites a terminal output stream, write by write, keeping the terminal's graphic state."""

    def __init__(self) -> None:
        self.terminal: Sgr | None = DEFAULT  # what the terminal is in (None: unknown)
        self.wanted: Sgr | None = DEFAULT  # what the stream has asked for so far

    def _settle(self, out: list[str]) -> None:
        if self.wanted is None:
            return
        out.append(transition(self.terminal, self.wanted))
        self.terminal = self.wanted

    def compact(self, data: str) -> str:
        """`data` with its SGR sequences reduced to the changes; ends in the state `data` ends in."""
        out: list[str] = []
        for match in _TOKEN.finditer(data):
            kind = match.lastgroup
            if kind == "sgr":
                params = match.group("params")
                base = self.wanted
                if base is None and (params in ("", "0") or params.startswith("0;")):
                    base = DEFAULT  # a reset: the state is known again
                after = None if base is None else apply(base, params)
                if after is None:  # not followed: pass it on as it is, from the state asked for
                    self._settle(out)
                    out.append(match.group(0))
                    self.terminal = None
                self.wanted = after
            elif kind == "move" or (kind == "text" and not match.group(0).strip("\r\n")):
                out.append(match.group(0))  # moving the cursor does not depend on colours
            else:
                self._settle(out)
                out.append(match.group(0))
        self._settle(out)
        return "".join(out)
