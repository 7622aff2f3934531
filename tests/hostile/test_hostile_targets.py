"""Hostile targets files: a directory, a 10 MB line, a missing file, a FIFO, a device, binary.

Each is one `specview: error: …` line naming the file (and the line where there is one), exit
2, in bounded time and memory, and nothing of the file's bytes reaches the terminal raw.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.hostile_checks import assert_terminal_clean, one_error_line
from tests.support.limited_run import base_env, run_cli

TIME_LIMIT = 30.0
MEMORY = 512 * 2**20  # far below what reading a big file whole, several times over, would take


def targets_run(tmp_path: Path, target: Path) -> tuple[int, str, bytes]:
    run = run_cli(["watch", "--targets", str(target), "--once", "--json"], base_env(tmp_path),
                  memory=MEMORY, timeout=TIME_LIMIT)
    assert not run.timed_out, f"still reading after {run.elapsed:.0f} s"
    return run.returncode, run.err, run.stdout + run.stderr


def test_a_directory(tmp_path: Path) -> None:
    code, err, _raw = targets_run(tmp_path, tmp_path)
    assert code == 2 and "is a directory" in one_error_line(err)


def test_a_10_mb_line(tmp_path: Path) -> None:
    path = tmp_path / "fleet.txt"
    path.write_bytes(b"http://127.0.0.1:1\n" + b"\x1b[2J" * (10 * 2**20 // 4) + b"\n")
    code, err, raw = targets_run(tmp_path, path)
    assert code == 2 and "more than a targets file holds" in one_error_line(err)
    assert b"\x1b[2J" not in raw


def test_a_long_line_within_the_size_is_named_by_number(tmp_path: Path) -> None:
    path = tmp_path / "fleet.txt"
    path.write_bytes(b"http://127.0.0.1:1\n# fine\n" + b"\x1b]0;owned\x07" * 50_000 + b"\n")
    code, err, raw = targets_run(tmp_path, path)
    line = one_error_line(err)
    assert code == 2 and "line 3 is" in line and "a URL is at most" in line
    assert_terminal_clean(raw)


def test_a_bad_url_shows_no_raw_control_characters(tmp_path: Path) -> None:
    path = tmp_path / "fleet.txt"
    path.write_bytes(b"http://127.0.0.1:1\nhttp://\x1b[31mred\x1b[0m:1\n")
    code, err, raw = targets_run(tmp_path, path)
    assert code == 2 and "line 2" in one_error_line(err)
    assert b"\x1b[31m" not in raw


def test_a_missing_file(tmp_path: Path) -> None:
    code, err, _ = targets_run(tmp_path, tmp_path / "nowhere.txt")
    assert code == 2 and "no such file" in one_error_line(err)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fleet.fifo"
    os.mkfifo(fifo)
    code, err, _ = targets_run(tmp_path, fifo)
    assert code == 2 and "not a regular file" in one_error_line(err)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_device_is_refused(tmp_path: Path) -> None:
    code, err, _ = targets_run(tmp_path, Path("/dev/zero"))
    assert code == 2 and "not a regular file" in one_error_line(err)


def test_binary_bytes(tmp_path: Path) -> None:
    path = tmp_path / "fleet.bin"
    path.write_bytes(b"http://127.0.0.1:1\n\x00\xff\xfe\x9b[2J\n")
    code, err, raw = targets_run(tmp_path, path)
    assert code == 2 and "line 2 is not UTF-8" in one_error_line(err)
    assert b"\x9b" not in raw
