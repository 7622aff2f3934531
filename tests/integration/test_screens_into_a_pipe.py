"""The commands that draw a screen, with standard output a pipe (cron, CI, `> out`): one line on stderr
naming the command that prints instead, exit 2, no escape byte, at once (before, `learn 3` ran until
killed). The commands it names print into the same pipe, and `watch` keeps printing its lines there."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.exporter import exporters
from tests.support.hostile_checks import json_lines, one_error_line
from tests.support.limited_run import base_env
from tests.support.processes import stop
from tests.support.waiting import wait_until

PROMPT_S = 60  # seconds: a refusal takes about one start of Python


def env(home: Path) -> dict[str, str]:
    clean = base_env(home)
    clean.pop("TEXTUAL_DRIVER", None)  # a driver named there draws through its pipe (textual-serve's)
    return clean


def piped(home: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`python -m specview ARGS` as cron runs it: stdin /dev/null, stdout and stderr pipes."""
    return subprocess.run([sys.executable, "-m", "specview", *args], stdin=subprocess.DEVNULL, capture_output=True,
                          env=env(home), cwd=home, timeout=PROMPT_S)


def recorded(home: Path) -> str:
    """A recording in `home` (made by `bench --record`, into a pipe), by the name the command line gives it."""
    made = piped(home, "--record", "run.jsonl", "bench", "--rounds", "5", "--json")
    assert made.returncode == 0, made.stderr
    return "run.jsonl"


# the command line (RECORDING: the file recorded() made), and the command the line names instead
RECORDING = "{recording}"
REFUSED = {
    "live view": ([], "specview bench --json"),
    "live view with selectors": (["--preset", "glm-5.2-mtp", "--seed", "7", "--gamma", "5"], "specview bench --json"),
    "compare": (["compare", "qwen3.6-mtp", "glm-5.2-mtp"], "specview bench SELECTOR… --json"),
    "learn 3": (["learn", "3"], "specview learn 3 --json"),
    "learn index": (["learn"], "specview learn N --json"),
    "replay": (["replay", RECORDING], "specview replay run.jsonl --json"),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_a_screen_into_a_pipe_is_one_line_and_exit_2(case: str, tmp_path: Path) -> None:
    argv, instead = REFUSED[case]
    if RECORDING in argv:
        argv = [recorded(tmp_path) if word == RECORDING else word for word in argv]
    run = piped(tmp_path, *argv)
    line = one_error_line(run.stderr.decode())
    assert run.returncode == 2, run.stderr
    assert "needs a terminal" in line and line.endswith(f"run {instead}"), line
    assert b"\x1b" not in run.stdout and run.stdout == b""


def test_the_line_is_in_the_users_language(tmp_path: Path) -> None:
    run = piped(tmp_path, "--lang", "zh", "learn", "3")
    line = one_error_line(run.stderr.decode())
    assert run.returncode == 2 and "需要终端" in line and line.endswith("specview learn 3 --json"), line


def test_a_recording_is_not_started_where_nothing_is_drawn(tmp_path: Path) -> None:
    run = piped(tmp_path, "--record", "new.jsonl")
    assert run.returncode == 2 and "specview bench --json" in one_error_line(run.stderr.decode())
    assert not (tmp_path / "new.jsonl").exists()


def test_bad_input_is_still_named_first(tmp_path: Path) -> None:
    """The options (and a replay's file) are checked before the terminal: the line says what is wrong."""
    for argv, says in ((["--preset", "nope"], "unknown preset 'nope'"),
                       (["replay", "missing.jsonl"], "missing.jsonl")):
        run = piped(tmp_path, *argv)
        line = one_error_line(run.stderr.decode())
        assert run.returncode == 2 and says in line and "needs a terminal" not in line, line


def test_the_commands_named_instead_print_into_a_pipe(tmp_path: Path) -> None:
    recording = recorded(tmp_path)
    for argv in (["bench", "--json"], ["learn", "3", "--json"], ["replay", recording, "--json"],
                 ["bench", "qwen3.6-mtp", "glm-5.2-mtp", "--json"]):
        run = piped(tmp_path, *argv)
        assert run.returncode == 0 and run.stderr == b"", run.stderr
        assert json_lines(run.stdout), argv
    calc = piped(tmp_path, "calc", "--alpha", "0.8", "--gamma", "4", "--c", "0.05")
    assert calc.returncode == 0 and b"\x1b" not in calc.stdout and calc.stdout.strip()


def test_watch_prints_its_lines_into_a_pipe(tmp_path: Path) -> None:
    """`watch` without --json or --count has a way to print: a line per poll, not a refusal."""
    with exporters(1) as (server,):
        server.advance(10, (8, 6, 4), running=1)
        proc = subprocess.Popen([sys.executable, "-m", "specview", "watch", "--url", server.root, "-d", "0.2"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env(tmp_path), cwd=tmp_path)
        lines: list[bytes] = []

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            wait_until(lambda: len(lines) >= 2 or proc.poll() is not None, PROMPT_S, "two lines from watch")
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
        finally:
            stop(proc)
            reader.join(10)
    assert b"\x1b" not in b"".join(lines)
    assert b"llama-server" in lines[0], lines
