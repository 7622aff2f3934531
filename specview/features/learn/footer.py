"""The Learn screens' footer: keys that do not fit are left out whole (F1 lists every one), never cut."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

from specview.compat.textual_compat import FooterKey
from specview.texts.catalog import text

# Left out first when the row is too narrow: the ones that are elsewhere too (q quits from the help and
# every screen; the command palette is listed in F1). Then the screen's own keys from the right. The
# ways to move stay whatever the width: esc back, the previous/next screen, l the index, F1 the help.
DROP_FIRST = ("quit", "command_palette")
KEEP = ("help", "pop_screen", "learn", "next_lesson")
PAIR = ("previous_lesson", "next_lesson")  # drawn as one key, `pgup/pgdn prev/next`


def key_name(key: FooterKey) -> str:
    """The action a footer key runs, without its namespace (`app.learn` → `learn`)."""
    return key.action.rpartition(".")[2]


def key_cells(key: FooterKey) -> int:
    """The cells a key takes in the row: `key description` and a cell of padding either side."""
    return cell_len(key.key_display) + (1 + cell_len(key.description) if key.description else 0) + 2


def fitting(keys: list[FooterKey], width: int) -> list[FooterKey]:
    """The keys that fit in `width` cells, in their order, leaving out whole keys by DROP_FIRST then from the right."""
    kept = list(keys)
    order = [k for n in DROP_FIRST for k in kept if key_name(k) == n]
    order += [k for k in reversed(kept) if k not in order and key_name(k) not in KEEP]
    for key in order:
        if sum(key_cells(k) for k in kept) <= width:
            break
        kept.remove(key)
    return kept


def paired(keys: list[FooterKey], lang: str) -> list[FooterKey]:
    """The previous- and next-screen keys as one (`pgup/pgdn prev/next`, after esc; a click goes to the next
    screen), so moving costs the row one key; dimmed only when both ends are reached."""
    found = {key_name(k): k for k in keys if key_name(k) in PAIR}
    if len(found) < len(PAIR):
        return keys
    before, after = found[PAIR[0]], found[PAIR[1]]
    disabled = before.has_class("-disabled") and after.has_class("-disabled")
    one = FooterKey(after.key, f"{before.key_display}/{after.key_display}", text("learn.footer.move", lang),
                    after.action, disabled=disabled, tooltip=text("learn.footer.move_tip", lang)).data_bind(
                    compact=Footer.compact)
    out = [key for key in keys if key is not before and key is not after]
    back = [i for i, key in enumerate(out) if key_name(key) == "pop_screen"]
    out.insert(back[0] + 1 if back else 0, one)  # after esc: the ways to move side by side
    return out


class LearnFooter(Footer):
    """Footer that composes only the keys its width holds."""

    def compose(self) -> ComposeResult:
        widgets: list[Widget] = list(super().compose())  # Learn screens group no bindings: plain FooterKeys
        keys = [w for w in widgets if isinstance(w, FooterKey)]
        if len(keys) != len(widgets):
            yield from widgets
            return
        keys = paired(keys, getattr(self.screen, "lang", "en"))
        if self.size.width <= 0:
            yield from keys
            return
        yield from fitting(keys, self.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.recompose)
