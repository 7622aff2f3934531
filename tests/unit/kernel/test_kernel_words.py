"""The kernel speaks in ids and data: the words a user reads come from catalog ids (zh and en), put
in a language by the view or the report that shows them.

Precisely: no string literal in a kernel module holds two words with a space between them, except a
docstring and the message of a `raise` or `assert` (a programmer's error, or a validation detail naming
a field that a catalog text frames, as the boundary's own are); and no kernel module renders a Phrase
itself, except errors.py (an exception's `str()` is English by Python's protocol; a view asks
`in_language`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import specview.kernel

KERNEL = Path(specview.kernel.__file__).parent
RENDERS = {"errors.py"}  # see the module docstring
WORDS = re.compile(r"[^\W\d_]{2,} +[^\W\d_]{2,}")  # two words with a space between them


def _exempt(tree: ast.Module) -> set[int]:
    """The ids of the nodes the rule leaves alone: docstrings, and everything inside a raise or an assert."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
        if isinstance(node, ast.Raise | ast.Assert):
            out.update(id(sub) for sub in ast.walk(node))
    return out


def _findings(source: str, name: str) -> list[str]:
    tree = ast.parse(source)
    exempt = _exempt(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in exempt:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and WORDS.search(node.value):
            found.append(f"{name}:{node.lineno}: words {node.value!r}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "render"
                and name not in RENDERS):
            found.append(f"{name}:{node.lineno}: renders a Phrase")
    return found


def test_the_kernel_holds_no_words_a_user_reads() -> None:
    found = [hit for path in sorted(KERNEL.rglob("*.py"))
             for hit in _findings(path.read_text(encoding="utf-8"), str(path.relative_to(KERNEL)))]
    assert found == [], "user-facing words in the kernel (use a catalog id):\n" + "\n".join(found)


def test_the_check_finds_words_and_renders_but_not_docstrings_or_errors() -> None:
    source = '''
"""A docstring may say anything at all."""
def f(x):
    """So may this one."""
    if x:
        raise ValueError(f"x must be positive, got {x}")
    assert x, "never empty here"
    label = "busy machine"
    return x.render("en"), label, "gauge.tau.label", "γ 3 · 1.40×"
'''
    assert [hit.split(": ", 1)[1] for hit in _findings(source, "m.py")] == [
        "words 'busy machine'", "renders a Phrase"]
