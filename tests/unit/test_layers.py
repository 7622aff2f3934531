"""The layer rules, checked on the source: cli → tui → widgets | backends → core.

Every `import` counts, also those inside functions (a lazy import is still a dependency).
A forbidden import fails with the file, the line and the rule it breaks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "specview"
# layer -> the specview layers it may import (itself always)
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "texts": set(),
    "themes": set(),
    "presets": set(),
    "backends": {"core"},
    "widgets": {"core", "texts"},
    "learn": {"core", "widgets", "texts", "backends"},
    "export": {"core", "texts"},
    "serve": {"core"},
    "tui": {"core", "widgets", "backends", "texts", "themes", "learn", "export"},
    "cli": {"core", "backends", "tui", "texts", "themes", "learn", "widgets", "export", "serve"},
}
NO_TEXTUAL = {"core", "backends", "texts", "export", "serve"}
# core modules that may import numpy when they are imported (everything else in core imports it lazily)
NUMPY_AT_IMPORT = {"core/sampling.py"}


def _layer(path: Path, root: Path) -> str:
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else "root"


def _imports(tree: ast.AST) -> list[tuple[str, int, bool]]:
    """(module, line, at module level) for every import in the tree."""
    found: list[tuple[str, int, bool]] = []
    top = {id(node) for node in getattr(tree, "body", [])}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno, id(node) in top))
    return found


def violations(root: Path = PACKAGE) -> list[str]:
    """Every import that breaks a layer rule, as 'file:line: reason'."""
    out: list[str] = []
    for path in sorted(root.rglob("*.py")):
        layer = _layer(path, root)
        if layer not in ALLOWED:
            continue
        rel = path.relative_to(root).as_posix()
        for module, line, top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            parts = module.split(".")
            if parts[0] == "specview" and len(parts) > 1:
                target = parts[1]
                if target != layer and target in ALLOWED and target not in ALLOWED[layer]:
                    out.append(f"{rel}:{line}: {layer} must not import {target} ({module})")
            elif parts[0] == "textual" and layer in NO_TEXTUAL:
                out.append(f"{rel}:{line}: {layer} must not import Textual")
            elif parts[0] == "numpy" and layer == "core" and top and rel not in NUMPY_AT_IMPORT:
                out.append(f"{rel}:{line}: core imports numpy at import time (import it where it is used)")
    return out


def test_no_module_breaks_a_layer_rule() -> None:
    assert violations() == []


@pytest.mark.parametrize(
    ("where", "line", "rule"),
    [
        ("core/bad.py", "from specview.backends.factory import make_backend", "core must not import backends"),
        ("core/bad.py", "import textual.app", "core must not import Textual"),
        ("core/bad.py", "import numpy as np", "core imports numpy at import time"),
        ("backends/bad.py", "from specview.tui.app import SpecviewApp", "backends must not import tui"),
        ("widgets/bad.py", "def f():\n    from specview.backends import sim", "widgets must not import backends"),
        ("texts/bad.py", "from specview.core.events import Round", "texts must not import core"),
        ("themes/bad.py", "from specview.widgets.bars import bar", "themes must not import widgets"),
    ],
)
def test_a_forbidden_import_is_caught(tmp_path: Path, where: str, line: str, rule: str) -> None:
    for folder in ("core", "backends", "widgets", "texts", "themes"):
        (tmp_path / folder).mkdir()
    (tmp_path / where).write_text(line + "\n")
    found = violations(tmp_path)
    assert len(found) == 1 and rule in found[0] and found[0].startswith(where)
