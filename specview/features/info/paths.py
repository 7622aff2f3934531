"""Every file and folder specview reads or writes, each asked of its owner and described without
opening it (boundary/path_kind.py): a config or a variable may point a name at a FIFO, a folder or a
dangling link, and `specview info` says so instead of blocking on it or following it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from specview.boundary.path_kind import PathKind, path_kind, toml_files_in

if TYPE_CHECKING:
    from specview.catalog.config import Config

FOLDER, FILE = "folder", "file"
# the files specview itself writes (boundary/safe_files.py: never through a link, so a link there stops the write)
WRITTEN = frozenset({"sweep_gamma", "sweep_load", "last_diff", "crash_log", "llama_log"})


@dataclass(frozen=True, slots=True)
class PlaceInfo:
    """One place: its id (texts: info.path.<id>), the path, whether specview wants a FILE or a FOLDER
    there, who named it ("" for the platform's default; a variable's name; the config's key), what
    the name is now, and for a folder of TOML files how many it holds."""

    id: str
    path: str
    wants: str
    named_by: str
    kind: PathKind
    toml_files: int | None = None

    @property
    def written(self) -> bool:
        return self.id in WRITTEN


def _named(variable: str) -> str:
    return variable if os.environ.get(variable) else ""


def _place(id_: str, path: Path | str, wants: str, named_by: str = "", *, count: bool = False) -> PlaceInfo:
    path = Path(path)
    return PlaceInfo(id_, str(path), wants, named_by, path_kind(path), toml_files_in(path) if count else None)


def places(config: Config) -> list[PlaceInfo]:
    """Every place, in the order a reader looks for them: settings, then what specview keeps, then logs."""
    from platformdirs import user_state_path

    from specview.backends.local.log import default_log_path
    from specview.boundary.crash_log import crash_log_path
    from specview.catalog.config import SettingOrigin, config_path
    from specview.catalog.presets import user_preset_dir
    from specview.features.diff.last import default_path as last_diff_path
    from specview.features.sweep.saved import sweep_path

    config_file = config_path()
    themes = Path(str(resources.files("specview") / "themes"))
    export = config.export_dir
    source = config.source("export_dir")  # the variable's name, or the config file's key
    export_named_by = "" if not export else source.where if source.origin is SettingOrigin.ENV else "export_dir"
    return [
        _place("config", config_file, FILE, _named("SPECVIEW_CONFIG")),
        _place("keymap", config_file, FILE, _named("SPECVIEW_CONFIG")),
        _place("presets", user_preset_dir(), FOLDER, count=True),
        _place("themes", themes, FOLDER, count=True),
        _place("state", user_state_path("specview"), FOLDER),
        _place("sweep_gamma", sweep_path("gamma"), FILE),
        _place("sweep_load", sweep_path("load"), FILE),
        _place("last_diff", last_diff_path(), FILE, _named("SPECVIEW_DIFF_LAST")),
        _place("exports", Path(export).expanduser() if export else Path.cwd(), FOLDER,
               export_named_by),
        _place("crash_log", crash_log_path(), FILE),
        _place("llama_log", default_log_path(), FILE, _named("SPECVIEW_LLAMA_LOG")),
    ]
