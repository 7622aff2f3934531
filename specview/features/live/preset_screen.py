"""`p`: choose a simulator preset from a list that shows each one's numbers."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.catalog.presets import Preset, load_presets
from specview.texts.catalog import Phrase, text
from specview.tui.notify import notify_safe, user_action
from specview.widgets.bindings import bind, localize

LINE_CHARS = 200


def choose_preset(screen: Screen[None], current: str | None, lang: str,
                  chosen: Callable[[str | None], None]) -> None:
    """Open the picker over `screen`; `chosen` gets the id (None on escape). A bad user
    preset file is skipped and said so; the others stay choosable."""
    problems: list[Phrase] = []
    with user_action(screen):
        presets = load_presets(problems=problems)
        for problem in problems:
            notify_safe(screen, problem.render(lang), title=text("notice.presets", lang), severity="warning")
        screen.app.push_screen(PresetScreen(presets, current, lang), chosen)


def preset_line(preset: Preset) -> Text:
    """One preset in the list: id, γ, declared τ and label (user presets are text from outside)."""
    line = f"{preset.id:<16} γ {preset.gamma:<2} τ {preset.declared_tau():4.2f}  {preset.label}"
    return Text(sanitize(line, LINE_CHARS, one_line=True))


def preset_detail(preset: Preset, lang: str) -> Text:
    """The preset's notes and its sources, each with its tag (vendor, authors…)."""
    sources = "\n".join(f"[{text(f'preset.source_tag.{s.tag}', lang)}] {s.title}" for s in preset.sources)
    return Text(sanitize(f"{preset.notes}\n\n{sources}", MAX_SHOWN))


class PresetScreen(ModalScreen[str | None]):
    """Returns the chosen preset id, or None on escape."""

    BINDINGS = [bind("escape", "cancel", "preset.cancel")]

    def __init__(self, presets: dict[str, Preset], current: str | None, lang: str = "en") -> None:
        super().__init__()
        localize(self, lang)
        self.presets = presets
        self.current = current
        self.lang = lang

    def compose(self) -> ComposeResult:
        options = [Option(preset_line(p), id=p.id) for p in self.presets.values()]
        with Vertical(id="preset-box", classes="modal-box") as box:
            box.border_title = text("preset.title", self.lang)
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
            self.query_one("#preset-detail", Static).update(preset_detail(preset, self.lang))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
