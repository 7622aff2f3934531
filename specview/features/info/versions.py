"""The versions `specview info` reports, read from the installed packages' metadata: nothing is imported."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

# the distributions specview runs on or offers, as their metadata names them
PACKAGES = ("textual", "textual-serve", "llama-cpp-python")


def package_version(name: str) -> str | None:
    """An installed distribution's version (None: not installed)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def specview_version() -> str:
    """specview's own version (the package says it; its metadata is what `--version` reads too)."""
    from specview import __version__

    return __version__


def python_version() -> str:
    """'3.11.9 (CPython)'."""
    return f"{platform.python_version()} ({platform.python_implementation()})"


def versions() -> dict[str, str | None]:
    """specview, Python and each of PACKAGES (None where not installed)."""
    return {"specview": specview_version(), "python": python_version(), "python_path": sys.executable,
            **{name: package_version(name) for name in PACKAGES}}
