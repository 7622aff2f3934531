"""specview as a distribution: one name, the one pyproject.toml declares, and every install hint says it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from specview.distribution import NAME, canonical, source_project

ROOT = Path(__file__).resolve().parents[2]
# `specview[...]` with nothing before it that makes it another name: what pip would look up as `specview`
BARE_EXTRA = re.compile(r"(?<![\w.-])specview\[")


def test_the_name_is_the_one_pyproject_declares() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == NAME
    assert source_project() == project
    assert project["scripts"] == {"specview": "specview.cli:main"}  # the command keeps its name
    assert set(project["optional-dependencies"]) >= {"llama", "demo", "serve"}


def test_names_compare_as_installers_compare_them() -> None:
    assert canonical("Specview_TUI") == canonical("specview.tui") == canonical("specview--tui") == NAME
    assert canonical("specview") != NAME


def test_every_install_hint_names_the_distribution() -> None:
    """`pip install 'specview[llama]'` would fetch another project's package or none: hints say NAME."""
    shipped = [p for p in (ROOT / "specview").rglob("*") if p.suffix in {".py", ".toml", ".txt", ".tcss"}]
    wrong = [f"{p.relative_to(ROOT)}:{n}" for p in shipped
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if BARE_EXTRA.search(line)]
    assert wrong == [], f"say {NAME}[…] in these install hints: {wrong}"
