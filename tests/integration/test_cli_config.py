"""Config problems are said by every command (cli/config_report.py), and `specview config check`
lists them all: real `python -m specview` processes with a config, variables and user presets of
their own, one of them watching a real /metrics server (tests/support/exporter.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.exporter import Exporter, exporters

NOT_TOML = "theme = [\n"


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The test's environment without the user's SPECVIEW_* settings; config and presets under `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECVIEW_") or k == "SPECVIEW_DIFF_LAST"}
    env.update(NO_COLOR="1", XDG_CONFIG_HOME=str(home), SPECVIEW_CONFIG=str(home / "config.toml"), **extra)
    return env


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True,
                          timeout=120, env=env, stdin=subprocess.DEVNULL)


@pytest.fixture
def server() -> Iterator[Exporter]:
    with exporters(1) as (one,):
        one.advance(10, (8, 6, 4), running=1)
        yield one


PROBLEMS = {  # what is wrong → (config file text, variables, the words of its warning)
    "not toml": (NOT_TOML, {}, "not valid TOML"),
    "unknown preset": ('preset = "nosuch"\n', {}, "key 'preset' names no known preset"),
    "speed not a number": ("", {"SPECVIEW_SPEED": "abc"}, "SPECVIEW_SPEED: key 'speed' must be a number"),
}


def headless_commands(server: Exporter) -> list[tuple[str, ...]]:
    return [
        ("calc", "--alpha", "0.8", "--gamma", "4", "--c", "0.05"),
        ("presets",),
        ("bench", "--rounds", "50", "--json"),
        ("learn", "10", "--json"),
        ("watch", "--url", server.root, "--once", "--json"),
    ]


@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_headless_commands_say_config_problems_on_stderr(problem: str, server: Exporter, tmp_path: Path) -> None:
    """Before: exit 0 and nothing said. After: one warning line, the command's output as before."""
    config, variables, words = PROBLEMS[problem]
    (tmp_path / "config.toml").write_text(config)
    env = clean_env(tmp_path, **variables)
    for args in headless_commands(server):
        out = run(env, *args)
        assert out.returncode == 0, (args, out.stderr)
        warnings = out.stderr.splitlines()
        assert len(warnings) == 1, (args, out.stderr)
        assert warnings[0].startswith("specview: warning: ") and words in warnings[0], (args, warnings)
        assert out.stdout.strip(), args  # the command still did its work


def test_a_clean_config_says_nothing(server: Exporter, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('preset = "eagle3"\nspeed = 2\n')
    env = clean_env(tmp_path)
    for args in headless_commands(server):
        out = run(env, *args)
        assert (out.returncode, out.stderr) == (0, ""), args


def test_config_check_clean(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('preset = "eagle3"\n')
    out = run(clean_env(tmp_path), "config", "check")
    assert out.returncode == 0, out.stderr
    assert "no problems" in out.stdout and str(tmp_path / "config.toml") in out.stdout
    data = json.loads(run(clean_env(tmp_path), "config", "check", "--json").stdout)
    assert data["ok"] is True and data["problems"] == [] and data["config_found"] is True


def test_config_check_lists_every_problem_in_full(tmp_path: Path) -> None:
    """Each kind of problem, together: the file's keys, a variable, a keymap id, a theme, a user preset."""
    (tmp_path / "config.toml").write_text('preset = "nosuch"\ntheme = "nosuch-theme"\nwobble = 1\n'
                                          '[keymap]\n"live.nosuch" = "k"\n')
    presets = tmp_path / "specview" / "presets"
    presets.mkdir(parents=True)
    (presets / "broken.toml").write_text(NOT_TOML)
    env = clean_env(tmp_path, SPECVIEW_SPEED="abc")
    out = run(env, "config", "check")
    assert out.returncode == 2, out.stderr
    assert out.stderr == ""  # the listing is the output, not warnings
    listed = [line for line in out.stdout.splitlines() if line.startswith("  - ")]
    for words in ("key 'preset' names no known preset", "unknown theme 'nosuch-theme'", "unknown key 'wobble'",
                  "[keymap] has no binding 'live.nosuch'; known ids: app.help", "SPECVIEW_SPEED: key 'speed'",
                  "broken.toml: not valid TOML"):
        assert sum(words in line for line in listed) == 1, (words, listed)
    assert len(listed) == 6
    assert "live.pause" in next(line for line in listed if "[keymap] has no binding" in line)  # in full: every known id
    data = json.loads(run(env, "config", "check", "--json").stdout)
    assert data["ok"] is False and len(data["problems"]) == 6
    assert data["environment"] == ["SPECVIEW_CONFIG", "SPECVIEW_SPEED"] and data["preset_files"] == 1


def test_config_check_not_toml(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(NOT_TOML)
    out = run(clean_env(tmp_path), "config", "check", "--json")
    assert out.returncode == 2
    (problem,) = json.loads(out.stdout)["problems"]
    assert "not valid TOML" in problem and "using the defaults" in problem


def test_config_check_speaks_chinese(tmp_path: Path) -> None:
    out = run(clean_env(tmp_path), "config", "check", "--lang", "zh")
    assert out.returncode == 0 and "没有问题" in out.stdout and "不存在" in out.stdout
