"""Every SpecviewError the code builds names a catalog id that both languages have (issue 23 item 4).

The walker reads the source: each call of a SpecviewError subclass (found by its class statement,
however deep) must give its message as a string literal that is an id of every catalog, or either
branch of `a if c else b`, or `TABLE["key"]` where TABLE is a dict, imported by name, whose entry is
such an id. A RecordingError's message is its reason (third argument): a `Phrase("id", …)`, or a
name bound to one in the same file. Every `Phrase("id", …)` with a literal id is checked too. A
plain English text still works at run time (it is shown as written, in every language): this test
is what lists it.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

from specview.texts.catalog import catalog, languages

PACKAGE = Path(__file__).resolve().parents[3] / "specview"
BASE = "SpecviewError"
REASON_IN_THIRD = {"RecordingError": (2, "reason")}  # classes whose message is not their first argument

# Half B of issue 23 item 4 converts these (the engines and `specview watch`); it empties this set as it
# goes, path by path. An entry here with nothing left to convert fails `test_the_half_b_list_holds_only_what_is_left`.
HALF_B_NOT_YET_CONVERTED: frozenset[str] = frozenset()  # backends/ and features/watch/ are converted too
# Errors whose id is chosen at run time, each from ids the catalogs hold (checked where they are made):
DYNAMIC_IDS = {
    ("specview/backends/factory.py", "BackendError"): "AUTO_NEEDS[kind]: a table of catalog ids",
    ("specview/backends/process.py", "BackendError"): "a child's error re-raised with its own id, or _ended's pair",
    ("specview/backends/remote/client.py", "HostileAnswer"): "quotes a RefusedEncoding's own Phrase (what, why)",
    ("specview/features/record/recording.py", "RecordingError"): "the totals sum's own Phrase (run_bounds.totals_sum)",
}


def _trees(root: Path) -> dict[str, ast.Module]:
    return {path.relative_to(root.parent).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted(root.rglob("*.py"))}


def error_classes(trees: dict[str, ast.Module]) -> set[str]:
    """SpecviewError and every class that derives from it, by name (to a fixed point)."""
    classes = [node for tree in trees.values() for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    found = {BASE}
    while True:
        more = {c.name for c in classes if c.name not in found and any(_name(b) in found for b in c.bases)}
        if not more:
            return found
        found |= more


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_id(value: object) -> bool:
    return isinstance(value, str) and all(value in catalog(lang) for lang in languages())


def _literal_ids(node: ast.expr) -> Iterator[object]:
    """What a message argument can be, as far as the source says (None where it does not)."""
    if isinstance(node, ast.Constant):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _literal_ids(node.body)
        yield from _literal_ids(node.orelse)
    else:
        yield None


class _Module:
    """What one file binds that a message may refer to: imported tables, names bound to a Phrase."""

    def __init__(self, tree: ast.Module) -> None:
        self.imported: dict[str, str] = {}
        self.phrases: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                self.imported |= {alias.asname or alias.name: node.module for alias in node.names}
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _phrase_ok(node.value):
                self.phrases |= {t.id for t in node.targets if isinstance(t, ast.Name)}

    def table_entry_ok(self, node: ast.expr) -> bool:
        """`TABLE["key"]` of an imported dict whose entry is an id."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and isinstance(node.slice, ast.Constant) and node.value.id in self.imported):
            return False
        table = getattr(importlib.import_module(self.imported[node.value.id]), node.value.id, None)
        return isinstance(table, dict) and _is_id(table.get(node.slice.value))


def _phrase_ok(call: ast.Call) -> bool:
    return _name(call.func) == "Phrase" and bool(call.args) and all(_is_id(v) for v in _literal_ids(call.args[0]))


def _message(call: ast.Call, cls: str) -> ast.expr | None:
    index, keyword = REASON_IN_THIRD.get(cls, (0, "key"))
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _message_ok(node: ast.expr | None, cls: str, module: _Module) -> bool:
    if node is None:
        return False
    if cls in REASON_IN_THIRD:
        return (isinstance(node, ast.Call) and _phrase_ok(node)) or (
            isinstance(node, ast.Name) and node.id in module.phrases)
    return all(_is_id(v) for v in _literal_ids(node)) or module.table_entry_ok(node)


def plain_messages(root: Path = PACKAGE) -> list[str]:
    """'path:line Class' for every error built with a message that is no id of every catalog, and
    'path:line Phrase' for every Phrase with a literal id some catalog lacks."""
    trees = _trees(root)
    classes = error_classes(trees if root == PACKAGE else _trees(PACKAGE) | trees)  # a planted tree: specview's too
    found = []
    for rel, tree in trees.items():
        module = _Module(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            callee = _name(node.func)
            if callee in classes:
                if not _message_ok(_message(node, callee), callee, module):
                    found.append(f"{rel}:{node.lineno} {callee}")
            elif callee == "Phrase" and node.args and isinstance(node.args[0], ast.Constant) and not _phrase_ok(node):
                found.append(f"{rel}:{node.lineno} Phrase")
    return sorted(found)


def _left_to_half_b(entry: str) -> bool:
    where, _, cls = entry.partition(" ")
    if (where.rsplit(":", 1)[0], cls) in DYNAMIC_IDS:
        return True
    return any(entry.startswith(prefix) for prefix in HALF_B_NOT_YET_CONVERTED)


def test_the_dynamic_ids_are_still_where_they_are_listed() -> None:
    found = {(entry.partition(" ")[0].rsplit(":", 1)[0], entry.partition(" ")[2]) for entry in plain_messages()}
    assert sorted(set(DYNAMIC_IDS) - found) == []


def test_every_error_the_code_builds_names_a_catalog_id() -> None:
    found = plain_messages()
    assert len(error_classes(_trees(PACKAGE))) >= 6  # the walker found the hierarchy, not only the base
    assert [entry for entry in found if not _left_to_half_b(entry)] == []


def test_the_half_b_list_holds_only_what_is_left() -> None:
    """When half B has converted a folder, its entry goes (so the list never hides a new plain message)."""
    found = plain_messages()
    assert [prefix for prefix in sorted(HALF_B_NOT_YET_CONVERTED)
            if not any(entry.startswith(prefix) for entry in found)] == []


def test_a_planted_plain_message_is_reported(tmp_path: Path) -> None:
    planted = tmp_path / "specview" / "kernel" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(
        "from specview.kernel.errors import CliError, RecordingError, SpecviewError\n"
        "from specview.texts.catalog import Phrase\n\n"
        "class Mine(CliError):\n"
        "    pass\n\n"
        "class Deeper(Mine):\n"
        "    pass\n\n"
        "WHY = Phrase('recorderr.empty')\n"
        "OK = [CliError('clierr.unknown_theme', theme='x', known=''), RecordingError('p', 1, WHY),\n"
        "      RecordingError('p', None, Phrase('recorderr.no_file')),\n"
        "      SpecviewError('clierr.record_command' if WHY else 'differr.not_sim')]\n"
        "BAD = [Deeper(f'no {WHY}'), Mine('clierr.nope'), RecordingError('p', 1, 'plain words'),\n"
        "       SpecviewError('clierr.record_command' if WHY else 'plain'), Phrase('nope.nope')]\n",
        encoding="utf-8")
    assert plain_messages(tmp_path / "specview") == sorted([
        "specview/kernel/planted.py:14 Deeper",
        "specview/kernel/planted.py:14 Mine",
        "specview/kernel/planted.py:14 RecordingError",
        "specview/kernel/planted.py:15 SpecviewError",
        "specview/kernel/planted.py:15 Phrase",
    ])
