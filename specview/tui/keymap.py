"""The config's `[keymap]`: binding ids to keys, as posting does (`"live.pause" = "p"`).

An id that no binding has is reported with the config file's name and ignored; Textual applies
the rest (`App.set_keymap`), and the footer and help show the keys in effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module

from textual.binding import Binding

from specview.core.text import shown

# Every class whose BINDINGS a user may remap ("module:Class" under specview)
BOUND = (
    "tui.app:BaseApp",
    "tui.live_screen:LiveScreen",
    "tui.compare_screen:CompareScreen",
    "tui.help_screen:HelpScreen",
    "tui.preset_screen:PresetScreen",
    "tui.real_run_screen:RealRunScreen",
    "tui.watch_screen:WatchScreen",
    "widgets.token_view:TokenView",
    "learn.base:LearnScreen",
    "learn.index_screen:LearnIndex",
)


def bound_ids() -> set[str]:
    """Every binding id a keymap may name."""
    ids: set[str] = set()
    for where in BOUND:
        module, _, name = where.partition(":")
        cls = getattr(import_module(f"specview.{module}"), name)
        ids |= {b.id for b in cls.BINDINGS if isinstance(b, Binding) and b.id}
    return ids


def check_keymap(keymap: Mapping[str, str], where: str) -> tuple[dict[str, str], list[str]]:
    """The keymap's usable entries, and one problem per id no binding has."""
    known = bound_ids()
    good: dict[str, str] = {}
    problems = []
    for bid, keys in keymap.items():
        if bid in known:
            good[bid] = keys
        else:
            problems.append(f"{where}: [keymap] has no binding {shown(bid)}; known ids: {', '.join(sorted(known))}")
    return good, problems
