"""Every catalog id the code names is in every language's catalog (a missing one would show as its key).

The walker reads the source, not the screens: `text("id")`, `fill("id")`, a Learn screen's
`self.t("id")` and `self.ts("name")` (the text `learn.<its lesson's slug>.name`), `Note("id")` (the
text `note.<id>`), `bind(keys, action, "id")` and `key_hint(node, "id")` (the texts
`keys.<id>.label` and `.tip`), each lesson's title and idea. An id built at run time
(`text(f"palette.{name}.title")`) is held to its fixed start: some text of the catalog begins so.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from specview.features.learn.registry import lessons
from specview.texts.catalog import catalog, join_unit_texts, languages

PACKAGE = Path(__file__).resolve().parents[3] / "specview"


@dataclass(frozen=True, slots=True)
class Use:
    """One catalog id the code names; `prefix` when only its start is fixed (an f-string)."""

    id: str
    where: str
    prefix: bool = False


def _ids(node: ast.expr) -> Iterator[tuple[str, bool]]:
    """The ids an argument can be: a literal, either branch of `a if c else b`, an f-string's start."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value, False
    elif isinstance(node, ast.IfExp):
        yield from _ids(node.body)
        yield from _ids(node.orelse)
    elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        yield str(node.values[0].value), True


def _argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _callee(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        return f"self.{func.attr}"
    return None


# callee -> (argument index, keyword, how the argument becomes catalog ids)
FORMS = {
    "text": (0, "key", lambda name, slug: [name]),
    "fill": (0, "key", lambda name, slug: [name]),
    "self.t": (0, "key", lambda name, slug: [name]),
    "self.ts": (0, "name", lambda name, slug: [f"learn.{slug}.{name}"]),
    "Note": (0, "id", lambda name, slug: [f"note.{name}"]),
    "bind": (2, "bid", lambda name, slug: [f"keys.{name}.label", f"keys.{name}.tip"]),
    "key_hint": (1, "bid", lambda name, slug: [f"keys.{name}.label"]),
}


def uses_in(path: Path, slug: str | None, rel: str) -> list[Use]:
    """Every catalog id one source file names. `self.ts` in a module that declares no lesson has
    no slug to resolve: it is reported as the id `learn.?.<name>`, which no catalog has."""
    found: list[Use] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or (callee := _callee(node)) not in FORMS:
            continue
        index, keyword, expand = FORMS[callee]
        arg = _argument(node, index, keyword)
        for name, prefix in _ids(arg) if arg is not None else ():
            found += [Use(i, f"{rel}:{node.lineno}", prefix) for i in expand(name, slug or "?")]
    return found


def code_uses(root: Path = PACKAGE) -> list[Use]:
    """Every catalog id the package's source names, and each lesson's title and idea."""
    slugs = {Path(sys.modules[item.screen.__module__].__file__ or "").resolve(): item.slug for item in lessons()}
    found = [use for path in sorted(root.rglob("*.py"))
             for use in uses_in(path, slugs.get(path.resolve()), path.relative_to(root.parent).as_posix())]
    return found + [Use(key, f"lesson {item.number}") for item in lessons() for key in (item.title_key, item.idea_key)]


def missing(uses: list[Use], lang: str) -> list[str]:
    """'where: id' for each use the language's catalog lacks (no English stand-in: that is the bug)."""
    join_unit_texts()  # every installed unit's texts too: a server kind's note is rendered by replay
    texts = catalog(lang)
    return sorted(f"{use.where}: {use.id}{'…' if use.prefix else ''}" for use in uses
                  if not (any(key.startswith(use.id) for key in texts) if use.prefix else use.id in texts))


@pytest.mark.parametrize("lang", languages())
def test_every_id_the_code_names_is_in_the_catalog(lang: str) -> None:
    uses = code_uses()
    assert len({use.id for use in uses if not use.prefix}) > 300  # the walker reads the tree, not a corner of it
    assert missing(uses, lang) == []


@pytest.mark.parametrize("lang", languages())
def test_a_planted_id_missing_from_the_catalog_is_reported(tmp_path: Path, lang: str) -> None:
    planted = tmp_path / "specview" / "tui" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(
        "from specview.kernel.backend import Note\n"
        "from specview.texts.catalog import fill, text\n"
        "from specview.widgets.bindings import bind\n\n"
        "BINDINGS = [bind('z', 'zap', 'planted.zap'), bind('q', 'quit', 'app.quit')]\n"
        "SHOWN = [text('planted.title'), fill('state.finished'), text('nope' if BINDINGS else 'state.finished')]\n"
        "NOTE = Note(id='planted_note')\n"
        "class Screen:\n"
        "    def body(self) -> str:\n"
        "        return self.ts('idea') + text(f'planted.{len(SHOWN)}')\n",
        encoding="utf-8")
    assert missing(code_uses(tmp_path / "specview"), lang) == sorted([
        "specview/tui/planted.py:5: keys.planted.zap.label",
        "specview/tui/planted.py:5: keys.planted.zap.tip",
        "specview/tui/planted.py:6: planted.title",
        "specview/tui/planted.py:6: nope",
        "specview/tui/planted.py:7: note.planted_note",
        "specview/tui/planted.py:10: learn.?.idea",  # a self.ts outside a lesson's module
        "specview/tui/planted.py:10: planted.…",
    ])
