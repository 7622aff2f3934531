"""F1 / ?: keys, marks and definitions, in the chosen language.

Nothing here is written twice: the keys come from the bindings of the screen underneath (with
the user's keymap), the numbers from the gauge table, the marks from the catalog.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from specview.kernel.gauges import GAUGES
from specview.texts.catalog import text
from specview.widgets.bindings import TEXTUAL_IDS, bind, key_lines, localize

KEY_WIDTH = 12
SYMBOL_WIDTH = 10


def help_text(nodes: list[DOMNode], lang: str) -> str:
    """The whole help: the keys of `nodes` (a screen, its focused widget, the app), the marks,
    and every gauge's definition."""
    lines = [text("help.keys", lang)]
    # specview's own keys first, Textual's (focus, copy, palette) after them
    for line in sorted(key_lines(nodes), key=lambda line: line.id in TEXTUAL_IDS.values()):
        lines.append(f"  {' / '.join(line.keys):<{KEY_WIDTH}} {line.tip or line.label}")
    lines += ["", text("help.marks", lang).strip("\n"), text("tree2.help_lost", lang), "", text("help.numbers", lang)]
    for spec in GAUGES:
        lines.append(f"  {text(spec.short_id, lang):<{SYMBOL_WIDTH}} {text(spec.help_id, lang)}")
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    """A scrollable help panel; any of esc / q / F1 closes it."""

    BINDINGS = [
        bind("escape,q,f1,question_mark", "dismiss", "help.close"),
    ]

    def __init__(self, lang: str = "en", under: Screen[object] | None = None) -> None:
        super().__init__()
        localize(self, lang)
        self.lang = lang
        self.under = under

    def compose(self) -> ComposeResult:
        nodes: list[DOMNode] = []
        if self.under is not None:
            nodes.append(self.under)
            if self.under.focused is not None:
                nodes.append(self.under.focused)
        nodes.append(self.app)
        with VerticalScroll(id="help-box", classes="modal-box") as box:
            box.border_title = text("help_title", self.lang)
            yield Static(help_text(nodes, self.lang), markup=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
