"""The top line: backend, preset, γ, T, seed, speed, the run state and the help key."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
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
        self.hint = ""

    def set(self, what: str | None = None, state: str | None = None, extra: str | None = None,
            hint: str | None = None) -> None:
        """Change any of the parts (None keeps it); redraws only when one changed."""
        changed = False
        for name, value in (("what", what), ("state", state), ("extra", extra), ("hint", hint)):
            if value is not None and value != getattr(self, name):
                setattr(self, name, value)
                changed = True
        if changed:
            self.show(self._line())

    def _line(self) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("specview ", style="bold")
        line.append(sanitize(self.what, MAX_SHOWN, one_line=True))  # a model id, a recording's label…
        if self.extra:
            line.append("  " + sanitize(self.extra, MAX_SHOWN, one_line=True))
        right = f"  {sanitize(self.state, 120, one_line=True)}   {sanitize(self.hint, 60, one_line=True)}"
        room = self.size.width - 2 - cell_len(right)
        if line.cell_len > room > 0:  # a long label gives way, so the state stays in view
            line.truncate(room, overflow="ellipsis")
        pad = max(1, room - line.cell_len)
        line.append(" " * pad + right)
        return line

    def on_resize(self) -> None:
        self.show(self._line())
