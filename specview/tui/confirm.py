"""A question before something that cannot be undone (ending a real run): yes or no, by key.

`y`, or the key that asked (pressed again: `p` then `p`), says yes; `esc` or `n` says no. The
keys that say yes again are the ones the user's keymap gives the asking binding, so a remapped
key confirms itself too.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from specview.texts.catalog import fill, text
from specview.widgets.bindings import bind, key_lines, localize


class ConfirmScreen(ModalScreen[bool]):
    """Dismissed with True (yes) or False (no)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > #confirm-box { width: 64; max-width: 95%; height: auto; padding: 0 1; }
    """
    BINDINGS = [
        bind("y", "answer(True)", "confirm.yes"),
        bind("escape,n", "answer(False)", "confirm.no"),
    ]

    def __init__(self, question: str, lang: str = "en", again: tuple[str, ...] = ()) -> None:
        super().__init__()
        localize(self, lang)
        self.question = question
        self.lang = lang
        self.again = again  # the asking binding's keys (Textual's key names): pressed again, yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="modal-box") as box:
            box.border_title = text("term.confirm.title", self.lang)
            yield Static(f"{self.question}\n\n{self._keys()}", markup=False)

    def _keys(self) -> str:
        """`p / y: end it · esc / n: keep it`, with the keys in effect."""
        lines = {line.id: line.keys for line in key_lines([self])}
        again = [self.app.get_key_display(Binding(key, "")) for key in self.again]
        yes = " / ".join(dict.fromkeys([*again, *lines.get("confirm.yes", ())]))
        return fill("term.confirm.keys", self.lang, yes=yes, no=" / ".join(lines.get("confirm.no", ())))

    def on_key(self, event: events.Key) -> None:
        if event.key in self.again:
            event.stop()
            self.dismiss(True)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
