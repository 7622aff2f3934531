"""An installed distribution made by hand: a `<name>-<version>.dist-info` folder (METADATA and
entry_points.txt) and the plugin's modules in one folder, which `importlib.metadata` finds like any
install once the folder is on sys.path (a child's PYTHONPATH)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def plant_distribution(site: Path, name: str, points: Mapping[str, Mapping[str, str]],
                       files: Mapping[str, str] | None = None, version: str = "0.1") -> Path:
    """Write distribution `name` into `site`: its entry points by group, and `files` (path → text)."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in entries.items()) + "\n"
        for group, entries in points.items()), encoding="utf-8")
    for path, body in (files or {}).items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(body, encoding="utf-8")
    return site
