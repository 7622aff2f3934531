"""No dead code: vulture (pyproject.toml's [tool.vulture], `make lint`) finds no name that nothing in
specview, its tests or its benchmarks reads, and every name vulture_whitelist.py excuses is still
defined or set somewhere (an excuse for code that is gone hides the next dead name of that spelling)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
WHITELIST = ROOT / "vulture_whitelist.py"


def test_vulture_finds_nothing() -> None:
    pytest.importorskip("vulture")  # the dev extra (make install-test) installs it
    done = subprocess.run([sys.executable, "-m", "vulture"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def _excused() -> list[str]:
    """The names the whitelist excuses: `_.name` and bare `name` lines."""
    names = []
    for node in ast.walk(ast.parse(WHITELIST.read_text("utf-8"))):
        if isinstance(node, ast.Expr):
            value = node.value
            if isinstance(value, ast.Attribute):
                names.append(value.attr)
            elif isinstance(value, ast.Name):
                names.append(value.id)
    return names


def test_every_excused_name_is_still_there() -> None:
    sources = "\n".join(path.read_text("utf-8") for folder in ("specview", "tests", "bench")
                        for path in (ROOT / folder).rglob("*.py"))
    missing = [name for name in _excused()
               if not re.search(rf"(\bdef {name}\b|\b{name}\s*[:=]|\.{name}\s*=|\b{name}\b\s*[,)])", sources)]
    assert missing == []
