"""The config's `[keymap]`: binding ids to keys, as posting does (`"live.pause" = "p"`).

The ids a keymap may name are those of the keys catalog (texts/keys.<lang>.toml): every `bind()`
takes its label and tooltip from there, and a test holds the two to each other (every binding
of every screen has its entry, every entry is a binding), so no screen's module needs importing
to know its keys and none can be left out. An id that no binding has, one of Textual's own
bindings (which Textual gives no id to move them by) and a key name no terminal key has in Textual
(`ctlr+k`: the binding could never run) are each reported with the config file's name and the
entry ignored; Textual applies the rest (`App.set_keymap`), and the footer, the help and the
texts that name a key show the keys in effect.
"""

from __future__ import annotations

from collections.abc import Mapping

from specview.boundary.text import shown
from specview.texts.catalog import Phrase, catalog
from specview.widgets.bindings import TEXTUAL_IDS, known_key


def bound_ids() -> set[str]:
    """Every binding id a keymap may name: the keys catalog's, less those it gives Textual's own
    bindings (which have no id for Textual to remap them by)."""
    labels = {key.removeprefix("keys.").removesuffix(".label") for key in catalog("en")
              if key.startswith("keys.") and key.endswith(".label")}
    return labels - set(TEXTUAL_IDS.values())


def check_keymap(keymap: Mapping[str, str], where: str) -> tuple[dict[str, str], list[Phrase]]:
    """The keymap's usable entries, and one problem per entry that cannot be used: an id no binding
    has, an id of Textual's own bindings, a key Textual has no such name for."""
    known = bound_ids()
    good: dict[str, str] = {}
    problems: list[Phrase] = []
    for bid, keys in keymap.items():
        unknown_keys = [key for key in keys.split(",") if not known_key(key)]
        if bid in TEXTUAL_IDS.values():
            problems.append(Phrase("user_files.keymap_textual", where=where, binding=shown(bid)))
        elif bid not in known:
            problems.append(Phrase("catalogerr.config.keymap_unknown", where=where, binding=shown(bid),
                                   known=", ".join(sorted(known))))
        elif unknown_keys:
            problems.append(Phrase("user_files.keymap_key", where=where, binding=shown(bid),
                                   key=shown(unknown_keys[0])))
        else:
            good[bid] = keys
    return good, problems
