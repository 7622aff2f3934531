"""Key bindings in the user's language, with the keys the user's keymap puts in effect.

Every specview binding has an id (`live.pause`) and no text of its own: its footer label and
tooltip are the catalog texts `keys.<id>.label` and `keys.<id>.tip` (texts/keys.<lang>.toml),
set by `localize` when the app, screen or widget is made. Textual's own bindings that show
(the command palette's, focus, copy) get ids here by their action. The help screen and the
status line list keys from the same bindings (`key_lines`), so a key is written once.

Textual has no public read of a node's bindings, the app's keymap or the names of the keys a
terminal can send: they come from specview/compat/textual_compat.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache

from textual.actions import parse
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.keys import KEY_NAME_REPLACEMENTS, Keys, key_to_character

from specview.boundary.text import sanitize
from specview.compat.textual_compat import app_keymap, functional_key_names, node_bindings
from specview.texts.catalog import catalog, text

# Textual's bindings, named by action, so they are translated like ours
TEXTUAL_IDS = {
    "command_palette": "app.palette",
    "app.focus_next": "screen.focus_next",
    "app.focus_previous": "screen.focus_previous",
    "screen.copy_text": "screen.copy",
}
KEY_CHARS = 40  # of one key as the help and the status line write it
MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


def bind(keys: str, action: str, bid: str, *, show: bool = True, priority: bool = False) -> Binding:
    """A binding named only by its id: `localize` gives it its label and tooltip. (The id
    stands in as the label until then, because Textual hides a binding made without one.)"""
    return Binding(keys, action, bid, show=show, priority=priority, id=bid)


def binding_id(binding: Binding) -> str | None:
    """The binding's id, or the id specview gives one of Textual's own."""
    return binding.id or TEXTUAL_IDS.get(binding.action)


def translate(binding: Binding, lang: str) -> Binding:
    """The binding with its label and tooltip in `lang` (unchanged when the catalog has none)."""
    bid = binding_id(binding)
    if bid is None or f"keys.{bid}.label" not in catalog("en"):
        return binding
    tip_key = f"keys.{bid}.tip"
    tip = text(tip_key, lang) if tip_key in catalog("en") else binding.tooltip
    return replace(binding, description=text(f"keys.{bid}.label", lang), tooltip=tip)


def localize(node: DOMNode, lang: str) -> None:
    """Translate the bindings of one app, screen or widget (call it from its __init__).

    Textual gives every node its own copy of its class's bindings map; the lists inside are
    shared with the class, so they are replaced, never changed in place.
    """
    bindings = node_bindings(node)
    for key, items in list(bindings.key_to_bindings.items()):
        bindings.key_to_bindings[key] = [translate(b, lang) for b in items]


@dataclass(frozen=True, slots=True)
class KeyLine:
    """One binding as the help lists it: its keys (as the footer writes them), label and tooltip."""

    id: str
    keys: tuple[str, ...]
    label: str
    tip: str
    priority: bool = False  # Textual offers the key to it before the focused widget and the screen


def offered(node: DOMNode, binding: Binding) -> bool:
    """Whether the binding does something here: a key the node's `check_action` turns off (False)
    is left out of the help as Textual leaves it out of the footer."""
    destination, name, params = parse(binding.action)
    return destination != "" or node.check_action(name, params) is not False


def effective_bindings(node: DOMNode) -> BindingsMap:
    """The node's bindings with the keys the app's keymap puts in effect (as Textual applies it
    when a key is pressed)."""
    effective = BindingsMap()
    effective.key_to_bindings = {k: list(v) for k, v in node_bindings(node).key_to_bindings.items()}
    effective.apply_keymap(app_keymap(node.app))
    return effective


def bound_keys(node: DOMNode, bid: str) -> tuple[str, ...]:
    """The keys (Textual's names) that binding `bid` of `node` has in effect."""
    return tuple(key for key, binding in effective_bindings(node) if binding_id(binding) == bid)


def key_lines(nodes: Iterable[DOMNode], *, only: str | None = None) -> list[KeyLine]:
    """Every labelled binding of these nodes, once per id, with the keys the app's keymap puts
    in effect (Textual applies it the same way when a key is pressed)."""
    seen: set[str] = set()
    out = []
    for node in nodes:
        app = node.app
        by_id: dict[str, list[Binding]] = {}
        for _, binding in effective_bindings(node):
            bid = binding_id(binding)
            if (bid is not None and binding.description and not binding.system and only in (None, bid)
                    and offered(node, binding)):
                by_id.setdefault(bid, []).append(binding)
        for bid, bindings in by_id.items():
            if bid not in seen:
                seen.add(bid)
                # the keymap comes from the user's config: its keys are shown safe
                keys = tuple(dict.fromkeys(sanitize(app.get_key_display(b), KEY_CHARS, one_line=True)
                                           for b in bindings))
                out.append(KeyLine(bid, keys, bindings[0].description, bindings[0].tooltip, bindings[0].priority))
    return out


@cache
def _key_names() -> frozenset[str]:
    """The names Textual gives keys that are no printable character (`f5`, `pageup`, `kp_enter`, `plus`)."""
    names = {key.value.rpartition("+")[2] for key in Keys}
    return frozenset(names | functional_key_names() | set(KEY_NAME_REPLACEMENTS.values()))


def known_key(name: str) -> bool:
    """Whether `name` is a key as Textual names what a terminal sends (`k`, `K`, `f24`,
    `ctrl+shift+up`, `question_mark`): a binding to any other name can never run."""
    *modifiers, base = name.split("+")
    if not base or not MODIFIERS.issuperset(modifiers):
        return False
    return len(base) == 1 or base in _key_names() or key_to_character(base) is not None


def first_key(node: DOMNode, bid: str) -> str:
    """The first key in effect for binding `bid` of `node`, as the footer writes it ("" if none)."""
    for line in key_lines([node], only=bid):
        return line.keys[0]
    return ""


def key_hint(node: DOMNode, bid: str) -> str:
    """`f1 help`: the first key in effect for binding `bid` of `node`, and its label."""
    for line in key_lines([node], only=bid):
        return f"{line.keys[0]} {line.label}"
    return ""
