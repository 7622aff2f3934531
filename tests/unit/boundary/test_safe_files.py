"""boundary/safe_files.py and the crash log's command line: the laws the hostile cases rely on."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from specview.boundary.crash_log import redacted_argv
from specview.boundary.safe_files import Refused, check_new, open_append, open_new, open_regular, write_new


def test_a_new_file_is_0600_and_refused_when_anything_has_the_name(tmp_path: Path) -> None:
    old = os.umask(0)  # the mode is specview's, not the umask's
    try:
        write_new(tmp_path / "new.md", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.md").stat().st_mode) == 0o600
    with pytest.raises(FileExistsError):
        write_new(tmp_path / "new.md", "y")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    with pytest.raises(Refused, match="symbolic link"):
        open_new(tmp_path / "dangling.md")
    assert not (tmp_path / "nowhere.md").exists()
    assert (tmp_path / "new.md").read_text() == "x"


def test_a_replacement_is_a_new_file_renamed_over_a_regular_one_only(tmp_path: Path) -> None:
    file, twin = tmp_path / "r.md", tmp_path / "twin.md"
    file.write_text("old")
    twin.hardlink_to(file)
    write_new(file, "new", replace=True)
    assert file.read_text() == "new" and twin.read_text() == "old"
    with open_new(file, replace=True) as out:  # a stream: in place at once, before anything is written
        assert file.read_text() == ""
        out.write("streamed")
    assert file.read_text() == "streamed"
    (tmp_path / "link.md").symlink_to(twin)
    os.mkfifo(tmp_path / "fifo.md")
    for name, what in (("link.md", "a symbolic link"), ("fifo.md", "a FIFO")):
        with pytest.raises(Refused, match=what):
            write_new(tmp_path / name, "x", replace=True)
        with pytest.raises(Refused, match=what):
            check_new(tmp_path / name, replace=True)
    assert twin.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.md", "link.md", "r.md", "twin.md"]  # no temp left


def test_a_failed_replacement_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    file = tmp_path / "r.md"
    file.write_text("old")
    script = ("import resource, sys\n"
              "from specview.boundary.safe_files import write_new\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))\n"  # a disk full after 100 bytes
              "try:\n"
              "    write_new(sys.argv[1], 'x' * 100_000, replace=True)\n"
              "except OSError as exc:\n"
              "    sys.exit(exc.strerror)\n")
    done = subprocess.run([sys.executable, "-c", script, str(file)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])})
    assert done.returncode == 1 and done.stderr.strip() == "File too large"
    assert file.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["r.md"]


def test_append_refuses_a_link_and_a_fifo_without_blocking(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("mine\n")
    (tmp_path / "link.log").symlink_to(target)
    os.mkfifo(tmp_path / "fifo.log")
    for name, what in (("link.log", "symbolic link"), ("fifo.log", "FIFO")):
        with pytest.raises(Refused, match=what):
            open_append(tmp_path / name)
    assert target.read_text() == "mine\n"
    target.chmod(0o644)
    with open_append(target) as log:
        log.write("more\n")
    assert target.read_text() == "mine\nmore\n" and stat.S_IMODE(target.stat().st_mode) == 0o600


def test_only_a_regular_file_is_opened_for_reading(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    done = threading.Event()

    def read_all() -> None:
        for path in (tmp_path / "fifo", Path("/dev/zero"), tmp_path):
            with pytest.raises(Refused, match="not a regular file"):
                open_regular(path)
        done.set()

    worker = threading.Thread(target=read_all, daemon=True)
    worker.start()
    assert done.wait(10), "opening a FIFO or a device blocked"
    (tmp_path / "ok").write_bytes(b"data")
    with open_regular(tmp_path / "ok") as stream:
        assert stream.read() == b"data"


@pytest.mark.parametrize(
    ("argv", "logged"),
    [
        (["--prompt", "secret words", "bench"], "--prompt <not logged> bench"),
        (["--prompt=secret words"], "--prompt=<not logged>"),
        (["--promp", "secret words"], "--promp <not logged>"),  # argparse takes an unambiguous prefix
        (["--system-prompt", "secret"], "--system-prompt <not logged>"),
        (["--prompt-file", "p.txt"], "--prompt-file p.txt"),  # a path; its contents are never read
        (["compare", "openai:https://bob:pw@h.example:8/v1?key=k123#f"], "compare openai:https://h.example:8/v1"),
        (["--url=http://u:p@[::1]:9/x?token=t"], "--url=http://[::1]:9/x"),
        (["serve", "--", "--prompt", "inner secret", "--url", "http://a:b@h/"],
         "serve -- --prompt <not logged> --url http://h/"),
        (["replay", "run\x1b]0;x\x07.jsonl"], "replay run␛]0;x␇.jsonl"),
    ],
)
def test_the_crash_logs_command_line(argv: list[str], logged: str) -> None:
    assert redacted_argv(argv) == logged
