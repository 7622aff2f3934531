"""`l`: the Learn index, one line per screen with its one-sentence idea."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from specview.features.learn.registry import Lesson, lessons
from specview.texts.catalog import text
from specview.widgets.bindings import bind, localize
from specview.widgets.prose import Wrapped


class LearnIndex(ModalScreen[Lesson | None]):
    """Returns the chosen lesson, or None on escape."""

    BINDINGS = [bind("escape,q", "cancel", "learn-index.close")]

    def __init__(self, lang: str = "en") -> None:
        super().__init__()
        localize(self, lang)
        self.lang = lang

    def compose(self) -> ComposeResult:
        options = [
            Option(Wrapped(f"{item.number:>2}  {text(item.title_key, self.lang)} — {text(item.idea_key, self.lang)}"),
                   id=str(item.number))
            for item in lessons()
        ]
        with Vertical(id="learn-index", classes="modal-box") as box:
            box.border_title = text("learn.index_title", self.lang)
            yield OptionList(*options, id="learn-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        number = int(event.option.id or 0)
        self.dismiss(next(item for item in lessons() if item.number == number))

    def action_cancel(self) -> None:
        self.dismiss(None)
