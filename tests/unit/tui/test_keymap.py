"""The keymap knows every binding of every screen, without importing a screen to find it.

`bound_ids()` reads the keys catalog; these tests hold the catalog and the bindings to each other:
every class of the UI layers that declares BINDINGS (found by importing every module of them)
has an id on each binding and a catalog entry for it, and every catalog entry is some binding.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from importlib import import_module
from pathlib import Path

from textual.binding import Binding
from textual.dom import DOMNode

from specview.tui.keymap import bound_ids
from specview.widgets.bindings import bind

ROOT = Path(__file__).resolve().parents[3]
UI_PACKAGES = ("specview.tui", "specview.widgets", "specview.features")  # the layers that may import Textual


def bound_classes() -> dict[str, list[Binding | tuple[str, ...]]]:
    """'module:Class' -> the bindings it declares itself, for every DOMNode class in the UI layers."""
    for package in UI_PACKAGES:
        for info in pkgutil.walk_packages(import_module(package).__path__, f"{package}."):
            import_module(info.name)
    found: dict[str, list[Binding | tuple[str, ...]]] = {}
    todo = list(DOMNode.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith("specview.") and cls.__dict__.get("BINDINGS"):
            found[f"{cls.__module__}:{cls.__qualname__}"] = list(cls.__dict__["BINDINGS"])
    return found


def unlisted(classes: dict[str, list[Binding | tuple[str, ...]]], known: set[str]) -> list[str]:
    """'where: why' for each binding a keymap could not remap: no id, or an id the catalog lacks."""
    out = []
    for where, bindings in classes.items():
        for binding in bindings:
            if not isinstance(binding, Binding) or not binding.id:
                out.append(f"{where}: a binding without an id ({binding})")
            elif binding.id not in known:
                out.append(f"{where}: {binding.id} is in no keys catalog entry")
    return sorted(out)


def test_every_binding_of_every_screen_is_in_the_keys_catalog_and_back() -> None:
    classes = bound_classes()
    assert {"specview.features.learn.cases_screen:CasesScreen", "specview.features.watch.screen:WatchScreen",
            "specview.widgets.grid:Grid"} <= set(classes)  # screens, the monitor and widgets all found
    assert unlisted(classes, bound_ids()) == []
    used = {b.id for bindings in classes.values() for b in bindings if isinstance(b, Binding)}
    assert sorted(bound_ids() - used) == []  # no catalog entry names a binding that is not there


def test_a_binding_the_catalog_lacks_is_reported() -> None:
    class Planted(DOMNode):
        BINDINGS = [bind("z", "zap", "planted.zap"), bind("p", "pause", "live.pause"), ("y", "yank")]

    classes = {"tests:Planted": list(Planted.__dict__["BINDINGS"])}
    assert unlisted(classes, bound_ids()) == ["tests:Planted: a binding without an id (('y', 'yank'))",
                                              "tests:Planted: planted.zap is in no keys catalog entry"]


def test_a_keymap_naming_a_binding_of_each_screen_is_accepted_before_any_screen_is_imported() -> None:
    classes = bound_classes()
    keymap = {next(b.id for b in bindings if isinstance(b, Binding) and b.id): "f12"
              for bindings in classes.values()}
    modules = sorted({where.partition(":")[0] for where in classes})
    code = (
        "import json, sys\n"
        "from specview.tui.keymap import check_keymap\n"
        f"good, problems = check_keymap({keymap!r}, 'config.toml')\n"
        f"print(json.dumps([sorted(good), problems, [m for m in {modules!r} if m in sys.modules]]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    good, problems, imported = json.loads(out.stdout)
    assert good == sorted(keymap) and problems == []
    assert imported == []  # no screen had to be imported to know its keys
    assert len(keymap) == len(classes) > 20
