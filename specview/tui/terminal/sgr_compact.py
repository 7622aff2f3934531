"""Say each colour change once: SGR sequences as the difference from the terminal's state.

Textual writes every segment as `ESC[<attributes;fg;bg>m text ESC[0m`, so a line of ten
coloured runs repeats the background ten times and resets ten times; colour sequences were
most of the bytes a frame cost (70 % measured on the live view). `apply` follows what a
sequence does to the graphic state, `transition` writes the shortest sequence from one state
to another (the changes, or a reset and the whole state when that is shorter). Used by
`screen_diff`, which writes them just before the text that needs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

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
