"""F1 / ?: keys, marks and definitions, in the chosen language.

Nothing here is written twice: the keys come from the bindings of the screen underneath (with
the user's keymap), the numbers from the gauge table, the marks from the catalog, a Learn
screen's terms from the glossary. A screen whose class sets `HELP_GLOSSARY` (the Learn screens)
gets the glossary after its keys instead of the live view's marks and numbers.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.geometry import Size
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from specview.catalog.glossary import glossary
from specview.kernel.gauges import GAUGES
from specview.texts.catalog import text
from specview.widgets.bindings import TEXTUAL_IDS, bind, key_lines, localize
from specview.widgets.prose import wrap

KEY_WIDTH = 12
SYMBOL_WIDTH = 10
INDENT = 2


def _rank(node: DOMNode) -> int:
    """Who is offered a key first when several bind it: the focused widget, then its screen, then the app."""
    return 2 if isinstance(node, App) else 1 if isinstance(node, Screen) else 0


# Textual's copy hands its key on when nothing is selected: ctrl+c copies a selection, else quits
PASSES_ON = frozenset({"screen.copy"})


def key_rows(nodes: list[DOMNode]) -> list[tuple[str, str]]:
    """(keys, what they do) for the bindings of `nodes` (a screen, its focused widget, the app), in
    that order, specview's own keys before Textual's. A key is listed only on the line whose action it
    runs, the way Textual dispatches it: priority bindings first (the app's `q` quits on every
    screen, so a screen's `q` is not listed), then the focused widget, its screen, the app; a line
    left with no key is dropped."""
    lines = {id(node): key_lines([node]) for node in nodes}
    nearest = sorted(nodes, key=_rank)
    first: dict[str, str] = {}  # key → the binding id that runs it
    for node in reversed(nearest):  # priority bindings: the app's before the screen's
        for line in lines[id(node)]:
            for key in line.keys if line.priority else ():
                first.setdefault(key, line.id)
    taken_by_priority = set(first)
    for node in nearest:
        for line in lines[id(node)]:
            for key in () if line.priority or line.id in PASSES_ON else line.keys:
                first.setdefault(key, line.id)
    rows: list[tuple[str, str, str]] = []
    for node in nodes:
        for line in lines[id(node)]:
            if line.id in PASSES_ON:
                keys = [key for key in line.keys if key not in taken_by_priority]
            else:
                keys = [key for key in line.keys if first.get(key) == line.id]
            if keys and all(line.id != row[0] for row in rows):
                rows.append((line.id, " / ".join(keys), line.tip or line.label))
    rows.sort(key=lambda row: row[0] in TEXTUAL_IDS.values())
    return [(keys, tip) for _, keys, tip in rows]


def columns(rows: list[tuple[str, str]], width: int, left: int) -> list[str]:
    """`rows` as lines of two columns: the left padded to `left` cells (or to its own width and one
    space), the right wrapped at term boundaries in what is left of `width` and indented under itself."""
    out = []
    for name, what in rows:
        start = INDENT + max(left, cell_len(name)) + 1
        room = max(width - start, 12)
        wrapped = wrap(what, room) or [""]
        out.append(" " * INDENT + name + " " * (start - INDENT - cell_len(name)) + wrapped[0])
        out += [" " * start + line for line in wrapped[1:]]
    return out


class HelpColumns(Static):
    """A heading and two aligned columns (by cells, so Chinese lines up), wrapped to the widget's width."""

    DEFAULT_CSS = "HelpColumns { height: auto; }"

    def __init__(self, heading: str, rows: list[tuple[str, str]], left: int, *, id: str) -> None:
        super().__init__(markup=False, id=id)
        self.heading = heading
        self.rows = rows
        self.left = left

    def lines(self, width: int) -> list[str]:
        """The rendered lines at `width` cells."""
        return [*wrap(self.heading, width), *columns(self.rows, width, self.left)]

    def render(self) -> str:
        return "\n".join(self.lines(self.content_region.width or 80))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))


def help_widgets(under: Screen[object] | None, nodes: list[DOMNode], lang: str) -> list[Static]:
    """The help's parts: the keys of `nodes`, then a Learn screen's glossary, or the marks and every
    gauge's definition."""
    parts: list[Static] = [HelpColumns(text("help.keys", lang), key_rows(nodes), KEY_WIDTH, id="help-keys")]
    if getattr(under, "HELP_GLOSSARY", False):
        terms = [(term.word, term.means) for term in glossary(lang)]
        left = max(cell_len(word) for word, _ in terms)
        parts.append(HelpColumns("\n" + text("help.glossary", lang), terms, left, id="help-glossary"))
        return parts
    marks = text("help.marks", lang).strip("\n") + "\n" + text("tree.help_lost", lang)
    parts.append(Static("\n" + marks, markup=False, id="help-marks"))
    numbers = [(text(spec.short_id, lang), text(spec.help_id, lang)) for spec in GAUGES]
    parts.append(HelpColumns("\n" + text("help.numbers", lang), numbers, SYMBOL_WIDTH, id="help-numbers"))
    return parts


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
            box.border_title = text("help.title", self.lang)
            yield from help_widgets(self.under, nodes, self.lang)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
