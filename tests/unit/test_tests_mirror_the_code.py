"""The tests' own layout: `tests/unit/` mirrors `specview/`, and every test file is named for what it tests.

A unit test of `specview/kernel/metrics.py` lives in `tests/unit/kernel/`, one of
`specview/features/watch/model/` in `tests/unit/features/watch/model/`; `tests/unit/` itself holds only
the tests of the package as a whole (its layers, its UI's source). No file is named after an issue, a
stop or an edition (`learn2`, `_first`, `_new`): those say when a test was written, not what it checks.
Test modules are imported by their file name (pytest's default `prepend` import mode, no `__init__.py`
under `tests/unit/`, `tests/app/`, …), so two test files may not share one name anywhere under `tests/`.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "specview"
TESTS = ROOT / "tests"
UNIT = TESTS / "unit"
# words that date a test instead of naming what it checks (digits are refused on their own)
EDITION_WORDS = frozenset({"first", "second", "third", "new", "newer", "old", "edition", "issue", "stop",
                           "again", "redo", "followup", "legacy", "v"})


def every_test_module() -> list[Path]:
    """Every test module under tests/ (snapshots and caches aside)."""
    return sorted(p for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts)


def test_every_unit_test_folder_is_a_package_of_specview() -> None:
    folders = sorted({p.parent for p in UNIT.rglob("*.py") if "__pycache__" not in p.parts})
    strays = [str(f.relative_to(ROOT)) for f in folders
              if not (PACKAGE / f.relative_to(UNIT) / "__init__.py").is_file()]
    assert strays == [], f"no package of specview/ matches these test folders: {strays}"


def test_tests_unit_holds_only_test_modules() -> None:
    others = [str(p.relative_to(ROOT)) for p in UNIT.rglob("*.py")
              if "__pycache__" not in p.parts and not p.name.startswith("test_") and p.name != "conftest.py"]
    assert others == [], f"not a test module (helpers go in tests/support/): {others}"


def test_a_test_named_after_a_subpackage_lives_in_its_folder() -> None:
    """`tests/unit/test_kernel_metrics.py` belongs in `tests/unit/kernel/`, and so on down the tree."""
    misplaced = []
    for path in UNIT.rglob("test_*.py"):
        here = PACKAGE / path.parent.relative_to(UNIT)
        first = path.stem.removeprefix("test_").split("_")[0]
        if (here / first / "__init__.py").is_file():
            misplaced.append(f"{path.relative_to(ROOT)} → {path.parent.relative_to(ROOT)}/{first}/")
    assert misplaced == [], f"move these into the subpackage they are named after: {misplaced}"


def test_no_test_file_is_named_after_an_issue_or_an_edition() -> None:
    dated = [str(p.relative_to(ROOT)) for p in every_test_module()
             if re.search(r"\d", p.stem) or EDITION_WORDS & set(p.stem.split("_"))]
    assert dated == [], f"name these for what they test, not for when: {dated}"


def test_no_two_test_files_share_a_name() -> None:
    names = Counter(p.name for p in every_test_module())
    shared = sorted(name for name, count in names.items() if count > 1)
    assert shared == [], f"test modules are imported by file name, so these collide: {shared}"
