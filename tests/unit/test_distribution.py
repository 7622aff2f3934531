"""specview as a distribution: one name, the one pyproject.toml declares, and every install hint says it; one
version, the installed metadata's, which `specview --version` says without loading anything heavy."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import specview
from specview.distribution import NAME, UNKNOWN, canonical, source_project, version
from tests.support.planted_dist import plant_distribution

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
    shipped += [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]  # what users read, too
    wrong = [f"{p.relative_to(ROOT)}:{n}" for p in shipped
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if BARE_EXTRA.search(line)]
    assert wrong == [], f"say {NAME}[…] in these install hints: {wrong}"


def test_the_version_is_the_installed_metadatas() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert version() == specview.__version__ == project["version"]


def test_version_says_what_the_metadata_says_and_loads_nothing_heavy(tmp_path: Path) -> None:
    """A distribution's metadata ahead of this tree's on the path: its version is the one said."""
    site = plant_distribution(tmp_path / "site", NAME, {}, version="9.8.7")
    code = ("import sys; sys.argv = ['specview', '--version']\nfrom specview.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('HEAVY', [m for m in ('textual', 'numpy', 'llama_cpp') if m in sys.modules])\n")
    env = {**os.environ, "PYTHONPATH": f"{site}:{ROOT}"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
                         cwd=tmp_path)
    assert out.stdout.splitlines() == ["specview 9.8.7", "HEAVY []"], out.stderr


@pytest.mark.parametrize("with_pyproject", [True, False])
def test_a_source_tree_without_metadata_reads_its_pyproject(tmp_path: Path, with_pyproject: bool) -> None:
    """specview's package copied where no metadata is (python -S: no site-packages): the pyproject.toml beside
    it gives the version, and without one the version still parses as one."""
    (tmp_path / "specview").mkdir()
    for module in ("__init__.py", "distribution.py"):
        shutil.copy(ROOT / "specview" / module, tmp_path / "specview" / module)
    if with_pyproject:
        (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "{NAME}"\nversion = "4.5.6"\n', encoding="utf-8")
    out = subprocess.run([sys.executable, "-S", "-c", "import specview; print(specview.__version__)"],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path,
                         env={"PATH": os.environ["PATH"], "PYTHONPATH": str(tmp_path)})
    assert out.stdout.strip() == ("4.5.6" if with_pyproject else UNKNOWN), out.stderr
