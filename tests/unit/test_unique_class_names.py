"""No two classes in specview share a name, private ones included: a name says what the class is,
so one name is one thing (`Engine` is the decode loop, `Verdict` the noise rule's answer)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import specview

pytestmark = pytest.mark.unit

PACKAGE = Path(specview.__file__).parent


def test_every_class_name_is_defined_once() -> None:
    where: defaultdict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(str(path.relative_to(PACKAGE.parent)))
    assert {name: files for name, files in where.items() if len(files) > 1} == {}
