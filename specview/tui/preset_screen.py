"""`p`: choose a simulator preset from a list that shows each one's numbers."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from specview.core.bounds import MAX_SHOWN
from specview.core.presets import Preset
from specview.core.text import sanitize


class PresetScreen(ModalScreen[str | None]):
    """Returns the chosen preset id, or None on escape."""

    BINDINGS = [Binding("escape", "cancel", "cancel", id="preset.cancel")]

    def __init__(self, presets: dict[str, Preset], current: str | None) -> None:
        super().__init__()
        self.presets = presets
        self.current = current

    def compose(self) -> ComposeResult:
        options = [  # user presets are text from outside: plain Text, sanitised
            Option(Text(sanitize(f"{p.id:<16} γ {p.gamma:<2} τ {p.declared_tau():4.2f}  {p.label}", 200,
                                 one_line=True)), id=p.id)
            for p in self.presets.values()
        ]
        with Vertical(id="preset-box") as box:
            box.border_title = "choose a preset"
            yield OptionList(*options, id="preset-list")
            yield Static("", id="preset-detail", markup=False)

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        if self.current in self.presets:
            listing.highlighted = list(self.presets).index(self.current)
        listing.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        preset = self.presets.get(event.option.id or "")
        if preset is not None:
            sources = "\n".join(f"[{s.tag}] {s.title}" for s in preset.sources)
            self.query_one("#preset-detail", Static).update(Text(sanitize(f"{preset.notes}\n\n{sources}", MAX_SHOWN)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
