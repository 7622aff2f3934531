"""The catalog files are filed by owner, never by when they were written.

The rule (specview/texts/<name>.<lang>.toml):

- A file is named for the unit or feature whose texts it holds (`watch`, `learn_speedup`, `backend`),
  never for an edition: no name, and no id's table, ends in a digit (`learn2`, `tree2`) or is marked
  `_first`, `_new`, `_old`, `_next`, `_v2`, `new_`, `old_`, ….
- Every id a file holds names the file's owner: the id is the file's name or starts with it and a dot,
  the name's `_` read as `.` too (`learn_speedup.en.toml` holds `learn.speedup.*`), or the id's table
  is the name and `err` (the owner's errors: `watch.en.toml` holds `watcherr.*`).
- An id is filed with its closest owner: no other file's name is a longer start of it (`learn.speedup.*`
  is in `learn_speedup`, not in `learn`), so one owner's texts are in one file.
- The mechanism tables are the exception: `note.<id>` (a Note), `keys.<id>` (a binding), `gauge.<key>`
  (a gauge) and `palette.<name>` (a command) are named by the thing that raises, binds or defines them,
  and each owner files its own beside its other texts.
- Every language has the same files.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from specview.texts.catalog import languages

TEXTS = Path(__file__).resolve().parents[3] / "specview" / "texts"
MECHANISMS = ("note", "keys", "gauge", "palette")
EDITION = re.compile(r"(\d|_(first|second|third|new|old|next|final|more|extra|rev|v\d+))$|^(new|old)_")


def _ids(data: dict[str, Any], prefix: str = "") -> list[str]:
    out: list[str] = []
    for key, value in data.items():
        if isinstance(value, dict):
            out += _ids(value, f"{prefix}{key}.")
        elif not isinstance(value, list):  # an array is data beside the texts (the glossary's variants)
            out.append(f"{prefix}{key}")
    return out


def _files(folder: Path) -> dict[str, dict[str, list[str]]]:
    """name -> lang -> the ids of texts/<name>.<lang>.toml."""
    found: dict[str, dict[str, list[str]]] = {}
    for path in sorted(folder.glob("*.toml")):
        parts = path.name.split(".")
        if len(parts) == 3:
            found.setdefault(parts[0], {})[parts[1]] = _ids(tomllib.loads(path.read_text(encoding="utf-8")))
    return found


def _names(file: str) -> set[str]:
    return {file, file.replace("_", ".")}


def _names_it(name: str, id_: str) -> bool:
    return id_ == name or id_.startswith(f"{name}.") or ("." not in name and id_.split(".")[0] == f"{name}err")


def _owner(id_: str, files: list[str]) -> str | None:
    """The file with the longest name that names `id_`."""
    return max(((len(n), f) for f in files for n in _names(f) if _names_it(n, id_)), default=(0, None))[1]


def misfiled(folder: Path) -> list[str]:
    """Each break of the rule, as 'file: what'."""
    files = _files(folder)
    names = sorted(files)
    out = [f"{name}: named for an edition" for name in names if EDITION.search(name)]
    out += [f"{name}: no {lang} file" for name in names for lang in languages() if lang not in files[name]]
    for name in names:
        for id_ in files[name].get("en", []):
            table = id_.split(".")[0]
            if EDITION.search(table):
                out.append(f"{name}: {id_} is in an edition's table")
            if table in MECHANISMS:
                continue
            owner = _owner(id_, names)
            if owner != name:
                out.append(f"{name}: {id_} belongs to {owner or 'a file of its own'}")
    return out


def test_every_catalog_file_holds_one_owners_texts_and_none_is_an_edition() -> None:
    assert len(_files(TEXTS)) > 20  # the walker reads the catalog, not a corner of it
    assert misfiled(TEXTS) == []


def test_a_planted_edition_and_a_stray_text_are_reported(tmp_path: Path) -> None:
    for lang in languages():
        (tmp_path / f"tree.{lang}.toml").write_text('[tree]\nq_rank = "rank"\n[note]\nseen = "a note"\n')
        (tmp_path / f"tree2.{lang}.toml").write_text('[tree2]\nlost = "lost"\n')
        (tmp_path / f"learn.{lang}.toml").write_text('"learn.home" = "home"\n"learn.speedup.title" = "faster"\n'
                                                   '[learnerr]\nno_screen = "no screen"\n[token]\nlost = "lost"\n')
        (tmp_path / f"learn_speedup.{lang}.toml").write_text('"learn.speedup.best" = "best"\n')
    (tmp_path / "watch.en.toml").write_text('[watch]\ntitle = "watch"\n')
    assert sorted(misfiled(tmp_path)) == sorted([
        "tree2: named for an edition",
        "tree2: tree2.lost is in an edition's table",
        "learn: learn.speedup.title belongs to learn_speedup",
        "learn: token.lost belongs to a file of its own",
        *(f"watch: no {lang} file" for lang in languages() if lang != "en"),
    ])
