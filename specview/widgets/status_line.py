"""The top line: backend, preset, γ, T, seed, speed, and the run state."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from specview.widgets.text_line import TextLine


class StatusLine(TextLine):
    """`specview  sim · qwen3.6-mtp · γ 3 · T 1 · seed 0        ▶ running   F1 help`."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.what = ""
        self.state = ""
        self.extra = ""

    def set(self, what: str | None = None, state: str | None = None, extra: str | None = None) -> None:
        changed = False
        for name, value in (("what", what), ("state", state), ("extra", extra)):
            if value is not None and value != getattr(self, name):
                setattr(self, name, value)
                changed = True
        if changed:
            self.show(self._line())

    def _line(self) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("specview ", style="bold")
        right = f"  {self.state}   F1 help"
        # a narrow terminal shortens the description, never the run's state on the right
        room = self.size.width - 2 - line.cell_len - cell_len(right)
        middle = Text(self.what + (f"  {self.extra}" if self.extra else ""), no_wrap=True)
        if middle.cell_len > room > 0:
            middle.truncate(room, overflow="ellipsis")
        line.append_text(middle)
        pad = max(1, self.size.width - 2 - line.cell_len - cell_len(right))
        line.append(" " * pad + right)
        return line

    def on_resize(self) -> None:
        self.show(self._line())
