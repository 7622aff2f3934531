"""What a name is, said without opening it: a FIFO is described (a read would block), a link and a
dangling link are told apart, and a file where a folder should be makes the name missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from specview.boundary.path_kind import FILE, MISSING, PathKind, path_kind, toml_files_in


def test_each_kind_of_name(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("12345")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to_file").symlink_to(tmp_path / "file")
    (tmp_path / "to_fifo").symlink_to(tmp_path / "fifo")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    assert path_kind(tmp_path / "file") == PathKind(FILE, 5)
    assert path_kind(tmp_path / "folder") == PathKind("folder")
    assert path_kind(tmp_path / "fifo") == PathKind("fifo")
    assert path_kind(tmp_path / "to_file") == PathKind(FILE, 5, link=str(tmp_path / "file"))
    assert path_kind(tmp_path / "to_fifo") == PathKind("fifo", link=str(tmp_path / "fifo"))
    assert path_kind(tmp_path / "dangling") == PathKind("link", link=str(tmp_path / "gone"), dangling=True)
    assert path_kind(tmp_path / "nothing") == PathKind(MISSING)
    assert path_kind(tmp_path / "file" / "below") == PathKind(MISSING)


@pytest.mark.skipif(os.geteuid() == 0, reason="root searches any folder")
def test_a_folder_that_cannot_be_searched(tmp_path: Path) -> None:
    shut = tmp_path / "shut"
    shut.mkdir()
    shut.chmod(0)
    try:
        found = path_kind(shut / "config.toml")
    finally:
        shut.chmod(0o700)
    assert found.kind == "unreadable" and found.error is not None


def test_toml_files_are_counted_in_a_folder_only(tmp_path: Path) -> None:
    for name in ("a.toml", "b.toml", "c.txt"):
        (tmp_path / name).write_text("")
    os.mkfifo(tmp_path / "d.toml")  # counted by its name, never opened
    assert toml_files_in(tmp_path) == 3
    assert toml_files_in(tmp_path / "a.toml") is None
    assert toml_files_in(tmp_path / "nothing") is None
