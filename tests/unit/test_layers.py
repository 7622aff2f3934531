"""The layer rules: import-linter's contracts in pyproject.toml, and the one rule it cannot express.

`lint-imports` must keep every contract on the tree as it is, and break the right one when a
forbidden import is planted in a copy of the package (so a contract that checks nothing fails
here). What import-linter cannot say — that the kernel imports numpy only where it is used, never
when a module is merely imported (`specview --help` must stay light) — is checked on the source.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "specview"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
# kernel modules that may import numpy when they are imported (everything else there imports it lazily)
NUMPY_AT_IMPORT = {"kernel/sampling.py", "kernel/tree_sampling.py"}
KERNEL = ("kernel", "boundary", "catalog")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter with the project's contracts, on the package found under `root`."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_every_contract_is_kept() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout[-3000:]


@pytest.mark.parametrize(
    ("where", "line", "contract"),
    [
        ("kernel/bad.py", "from specview.backends.factory import make_backend", "the kernel imports nothing above it"),
        ("kernel/bad.py", "import textual.app", "the kernel imports nothing above it"),
        ("kernel/bad.py", "from specview.features.watch.model import WatchSample", "the kernel imports no feature"),
        ("kernel/bad.py", "from specview.report.run_json import stats_dict", "the kernel imports nothing above it"),
        ("report/bad.py", "from specview.tui.gauges import gauge_rows", "the report stands on the kernel alone"),
        ("report/bad.py", "from specview.backends import sim", "the report stands on the kernel alone"),
        ("features/watch/model/__init__.py", "from specview.features.watch.app import WatchApp",
         "the kernel imports nothing above it"),
        ("backends/bad.py", "from specview.features.live.app import SpecviewApp", "engines never import the UI"),
        ("widgets/bad.py", "def f():\n    from specview.backends import sim", "widgets draw only"),
        ("texts/bad.py", "from specview.kernel.events import Round", "texts and themes import nothing of specview"),
        ("features/sweep/model.py", "from specview.features.sweep.runner import GammaSweepRunner",
         "the kernel imports nothing above it"),
        ("features/watch/source/__init__.py", "from specview.features.watch.screen import WatchScreen",
         "engines never import the UI"),
        ("features/diff/runner.py", "from specview.features.diff.command import run", "nothing imports a command"),
        ("compat/bad.py", "from specview.texts.catalog import text", "the compat adapters import nothing of specview"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(tmp_path: Path, where: str, line: str, contract: str) -> None:
    copy = tmp_path / "specview"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / where
    target.write_text((target.read_text(encoding="utf-8") if target.exists() else "") + "\n" + line + "\n",
                      encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, result.stdout[-3000:]


def _top_level_numpy(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(name == "numpy" or name.startswith("numpy.") for name in names):
            return True
    return False


def test_the_kernel_imports_numpy_only_where_it_is_used() -> None:
    eager = {p.relative_to(PACKAGE).as_posix() for folder in KERNEL for p in (PACKAGE / folder).rglob("*.py")
             if _top_level_numpy(p)}
    assert eager <= NUMPY_AT_IMPORT, sorted(eager - NUMPY_AT_IMPORT)
