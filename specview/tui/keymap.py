"""The config's `[keymap]`: binding ids to keys, as posting does (`"live.pause" = "p"`).

The ids a keymap may name are those of the keys catalog (texts/keys.<lang>.toml): every `bind()`
takes its label and tooltip from there, and a test holds the two to each other (every binding
of every screen has its entry, every entry is a binding), so no screen's module needs importing
to know its keys and none can be left out. An id that no binding has is reported with the config
file's name and ignored; Textual applies the rest (`App.set_keymap`), and the footer and help
show the keys in effect.
"""

from __future__ import annotations

from collections.abc import Mapping

from specview.boundary.text import shown
from specview.texts.catalog import Phrase, catalog
from specview.widgets.bindings import TEXTUAL_IDS


def bound_ids() -> set[str]:
    """Every binding id a keymap may name: the keys catalog's, less those it gives Textual's own
    bindings (which have no id for Textual to remap them by)."""
    labels = {key.removeprefix("keys.").removesuffix(".label") for key in catalog("en")
              if key.startswith("keys.") and key.endswith(".label")}
    return labels - set(TEXTUAL_IDS.values())


def check_keymap(keymap: Mapping[str, str], where: str) -> tuple[dict[str, str], list[Phrase]]:
    """The keymap's usable entries, and one problem per id no binding has."""
    known = bound_ids()
    good: dict[str, str] = {}
    problems: list[Phrase] = []
    for bid, keys in keymap.items():
        if bid in known:
            good[bid] = keys
        else:
            problems.append(Phrase("catalogerr.config.keymap_unknown", where=where, binding=shown(bid),
                                   known=", ".join(sorted(known))))
    return good, problems
