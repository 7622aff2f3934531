"""specview as an installed distribution: its name on the package index, its version, its metadata.

The command and the import package are `specview`; the distribution is `specview-tui` (`spec-view`, a
different project, holds the index's `specview` under its name rule). Everything that asks for the
installed package by name asks here. A source tree run without an install (`PYTHONPATH=.`) has no
metadata of its own: its pyproject.toml stands in, when it is this distribution's.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

NAME = "specview-tui"
UNKNOWN = "0+unknown"  # a tree with neither metadata nor its pyproject.toml (a copied package): still a version


def canonical(name: str) -> str:
    """A distribution name as installers compare them (PEP 503: case and runs of -_. ignored)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def version() -> str:
    """The installed distribution's version; a bare source tree's from its pyproject.toml."""
    try:
        return metadata.version(NAME)
    except metadata.PackageNotFoundError:
        return str(source_project().get("version", UNKNOWN))


def source_project() -> dict[str, Any]:
    """The `[project]` table of the pyproject.toml beside the package, if it declares this distribution
    (an installed package has none beside it; a stray one of another project is not ours): else {}."""
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    except (OSError, UnicodeDecodeError, KeyError, TypeError, tomllib.TOMLDecodeError):
        return {}
    return project if isinstance(project, dict) and canonical(str(project.get("name", ""))) == NAME else {}
