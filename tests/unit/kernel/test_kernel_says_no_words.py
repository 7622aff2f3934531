"""The kernel is maths and data: it names a text (a `Phrase`: a catalog id and its values) but never
fills one in a language. Words for a reader are filled above it (specview/report/, the views), so
the kernel imports nothing from the catalog but `Phrase` and the fallback language's code, even
inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import specview

pytestmark = pytest.mark.unit

KERNEL = Path(specview.__file__).parent / "kernel"
ALLOWED = {"Phrase", "FALLBACK"}


def test_no_kernel_module_fills_a_text() -> None:
    found = []
    for path in sorted(KERNEL.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "specview.texts.catalog":
                found += [f"{path.name}: {alias.name}" for alias in node.names if alias.name not in ALLOWED]
    assert found == []
