"""A labelled slider over a list of values, moved with ←/→ (and by a click on its track)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

from specview.widgets.bars import fit
from specview.widgets.bindings import bind

LABEL_WIDTH = 16
TRACK_MAX = 24


class Slider(Widget, can_focus=True):
    """`▸ label  ◀ ━━━━●━━━━ ▶ value`: discrete steps; ←/→ move one step, ↑/↓ move to the next control."""

    DEFAULT_CSS = """
    Slider { height: 1; width: 1fr; }
    Slider > .slider--label { color: $text-muted; }
    Slider > .slider--track { color: $text-muted; }
    Slider > .slider--knob { color: $text; text-style: bold; }
    Slider > .slider--value { color: $text; text-style: bold; }
    Slider:focus > .slider--label { color: $text; text-style: bold; }
    Slider:focus > .slider--knob { color: $primary; text-style: bold; }
    """
    COMPONENT_CLASSES = {"slider--label", "slider--track", "slider--knob", "slider--value"}
    BINDINGS = [
        bind("left", "move(-1)", "slider.less", show=False),
        bind("right", "move(1)", "slider.more", show=False),
        bind("up", "app.focus_previous", "slider.previous", show=False),
        bind("down", "app.focus_next", "slider.next", show=False),
    ]

    class Changed(Message):
        """The slider moved to another value."""

        def __init__(self, slider: Slider, value: Any) -> None:
            super().__init__()
            self.slider = slider
            self.value = value

        @property
        def control(self) -> Slider:
            return self.slider

    def __init__(self, label: str, values: Sequence[Any], index: int = 0,
                 show: Callable[[Any], str] = str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not values:
            raise ValueError("a slider needs at least one value")
        self.label = label
        self.values = list(values)
        self.index = max(0, min(index, len(self.values) - 1))
        self.show = show
        self.held: Any = None  # an exact value between the steps (`select(…, exact=True)`), until the user moves

    @property
    def value(self) -> Any:
        return self.values[self.index] if self.held is None else self.held

    def select(self, value: Any, *, notify: bool = False, exact: bool = False) -> None:
        """Move to `value` (or the nearest value for numbers) without a keypress. `exact` keeps a
        number between the steps as it is (a preset's α): the knob sits at the nearest step, the value
        shown and read is `value`, and the next move by the user snaps to a step."""
        if value in self.values:
            index = self.values.index(value)
        else:
            index = min(range(len(self.values)), key=lambda i: abs(float(self.values[i]) - float(value)))
        held = value if exact and value not in self.values else None
        if held != self.held:
            self.held = held
            self.refresh()
        self._set_index(index, notify)

    def action_move(self, step: int) -> None:
        self._set_index(self.index + step, True)

    def _set_index(self, index: int, notify: bool) -> None:
        index = max(0, min(index, len(self.values) - 1))
        if index == self.index:
            return
        self.index = index
        if notify:  # the user moved it: a step from here on
            self.held = None
        self.refresh()
        if notify:
            self.post_message(self.Changed(self, self.value))

    def _track_width(self) -> int:
        free = self.size.width - LABEL_WIDTH - 4 - 10
        return max(5, min(TRACK_MAX, free))

    def on_click(self, event: Click) -> None:
        start = LABEL_WIDTH + 2
        width = self._track_width()
        if start <= event.x < start + width and len(self.values) > 1:
            self._set_index(round((event.x - start) / max(1, width - 1) * (len(self.values) - 1)), True)

    def render(self) -> Text:
        style = self.get_component_rich_style
        line = Text(no_wrap=True, overflow="ellipsis")
        mark = "▸ " if self.has_focus else "  "
        line.append(mark + fit(self.label, LABEL_WIDTH - 3) + " ", style("slider--label"))
        width = self._track_width()
        knob = 0 if len(self.values) == 1 else round(self.index / (len(self.values) - 1) * (width - 1))
        line.append("◀ ", style("slider--track"))
        line.append("━" * knob, style("slider--knob"))
        line.append("●", style("slider--knob"))
        line.append("─" * (width - knob - 1), style("slider--track"))
        line.append(" ▶ ", style("slider--track"))
        line.append(self.show(self.value), style("slider--value"))
        return line
