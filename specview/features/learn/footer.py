"""The Learn screens' footer: keys that do not fit are left out whole (F1 lists every one), never cut."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

from specview.compat.textual_compat import FooterKey

# Left out first when the row is too narrow: the ones that are elsewhere too (esc goes back like q quits
# the last screen; the index is one esc away). Then the rest from the right; esc and F1 always stay.
DROP_FIRST = ("learn", "quit")
KEEP = ("help", "pop_screen")


def key_cells(key: FooterKey) -> int:
    """The cells a key takes in the row: `key description` and a cell of padding either side."""
    return cell_len(key.key_display) + (1 + cell_len(key.description) if key.description else 0) + 2


def fitting(keys: list[FooterKey], width: int) -> list[FooterKey]:
    """The keys that fit in `width` cells, in their order, leaving out whole keys by DROP_FIRST then from the right."""
    kept = list(keys)

    def name(key: FooterKey) -> str:
        return key.action.rpartition(".")[2]

    order = [k for n in DROP_FIRST for k in kept if name(k) == n and k.has_class("-command-palette") is False]
    order += [k for k in reversed(kept) if k not in order and name(k) not in KEEP]
    for key in order:
        if sum(key_cells(k) for k in kept) <= width:
            break
        kept.remove(key)
    return kept


class LearnFooter(Footer):
    """Footer that composes only the keys its width holds."""

    def compose(self) -> ComposeResult:
        widgets: list[Widget] = list(super().compose())  # Learn screens group no bindings: plain FooterKeys
        keys = [w for w in widgets if isinstance(w, FooterKey)]
        if self.size.width <= 0 or len(keys) != len(widgets):
            yield from widgets
            return
        yield from fitting(keys, self.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.recompose)
