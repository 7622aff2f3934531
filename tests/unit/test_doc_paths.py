"""Comments and docstrings in specview/ point only at files of this repository.

The rule, as this test applies it to every module's comments and docstrings and to the comment
lines of specview's TOML files (catalogs, presets, themes):
- a path `folder/name.ext` (.py .toml .md .tcss .txt .sh .json .jsonl) names a file relative to the
  repository root, to specview/, or to a folder between the file and specview/ (a feature's own
  folder: `model/alert_rules.py` inside features/watch/);
- a path starting with `../` leaves the repository and is never allowed;
- a bare `NAME.md` in capitals (README.md, DESIGN.md) names a file at the repository root.
Another project's file is cited by its URL, which is not a path here.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

import specview

pytestmark = pytest.mark.unit

PACKAGE = Path(specview.__file__).parent
ROOT = PACKAGE.parent
EXTENSIONS = "py|toml|md|tcss|txt|sh|json|jsonl"
_EDGE = r"[\w./:*<>-]"  # a path inside a URL, a glob or a template is none of these
PATH = re.compile(rf"(?<!{_EDGE})((?:\.\./)*[\w.-]+(?:/[\w.-]+)+\.(?:{EXTENSIONS}))(?![\w/*<>-])")
OUTSIDE = re.compile(r"(?<![\w./:])\.\./\S*")
BARE_MD = re.compile(r"(?<![\w./:-])([A-Z][A-Z0-9_-]*\.md)\b")
DATA_COMMENT = re.compile(r"\s*(?:\[[^\]]*\]\s*)?#(.*)")  # a comment line, or a table header's comment


def _docs(path: Path, source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring in a module, or comment in a data file."""
    if path.suffix != ".py":
        for number, line in enumerate(source.splitlines(), 1):
            if (found := DATA_COMMENT.match(line)) is not None:
                yield number, found.group(1)
        return
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                yield node.body[0].lineno, doc


def _names_a_file(reference: str, at: Path) -> bool:
    bases = [ROOT, *(folder for folder in at.parents if folder.is_relative_to(PACKAGE))]
    return any((base / reference).resolve().is_file() and (base / reference).resolve().is_relative_to(ROOT)
               for base in bases)


def broken_references(path: Path, source: str | None = None) -> list[str]:
    """`file:line: reference` for each reference in `path` (or in `source`, as if it were there)
    the rule refuses."""
    out = []
    for line, text in _docs(path, path.read_text("utf-8") if source is None else source):
        refused = [ref for ref in PATH.findall(text) if not _names_a_file(ref, path)]
        refused += OUTSIDE.findall(text)
        refused += [name for name in BARE_MD.findall(text) if not (ROOT / name).is_file()]
        out += [f"{path.relative_to(ROOT)}:{line}: {ref}" for ref in dict.fromkeys(refused)]
    return out


def test_every_path_a_comment_or_docstring_names_is_in_the_repository() -> None:
    files = sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".toml"))
    assert [bad for path in files for bad in broken_references(path)] == []


@pytest.mark.parametrize(("text", "refused"), [
    ('"""See core/gauges.py."""\n', ["core/gauges.py"]),
    ("# numbers from ../shared/research/numbers.md\n", ["../shared/research/numbers.md"]),
    ('"""Follows DESIGN.md."""\n', ["DESIGN.md"]),
    ('"""Written as run.md beside the recording; see README.md."""\n', []),
    ('"""See kernel/gauges.py, https://github.com/o/r/blob/main/x/y.py and texts/gauges.<lang>.toml."""\n', []),
    ('X = "core/gauges.py"  # a string that is no comment\n', []),
])
def test_the_rule_on_planted_references(text: str, refused: list[str]) -> None:
    planted = PACKAGE / "kernel" / "planted.py"  # read as if it were there; nothing is written
    assert [line.rsplit(": ", 1)[1] for line in broken_references(planted, text)] == refused
