"""Unknown and ambiguous options are named as such, with the nearest known one (cli/option_check.py):
real `python -m specview` processes, one line on stderr, exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ENV = {**os.environ, "NO_COLOR": "1", "SPECVIEW_CONFIG": os.devnull}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True,
                          timeout=60, env=ENV, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        # before: "argument COMMAND: invalid choice: '5' (choose from 'presets', …)"
        (("--gama", "5"), "unknown option --gama; did you mean --gamma?"),
        (("--prompt-file", "x.txt"), "unknown option --prompt-file; did you mean --prompt?"),
        (("--lang", "zh", "--gama=5"), "未知选项 --gama；你是不是想用 --gamma？"),  # said in the language asked for
        # before: "argument COMMAND: invalid choice: '3'"
        (("--c", "3"), "ambiguous option --c: could be --chat-template, --connect-timeout (see specview --help)"),
        # before: "unrecognized arguments: --gama" / "the following arguments are required: --alpha, …"
        (("bench", "--gama", "3"), "unknown option --gama; did you mean --gamma?"),
        (("calc", "--gama", "3"), "unknown option --gama; did you mean --gamma?"),
        (("sweep", "gamma", "--gamas", "1-3"), "unknown option --gamas; did you mean --gammas?"),
        # an option of a subcommand given before it
        (("--rounds", "9", "bench"), "unknown option --rounds here; it is an option of bench: "
                                     "specview bench --rounds …"),
        # nothing alike: no guess
        (("--frobnicate",), "unknown option --frobnicate (see specview --help)"),
        # a subcommand's name mistyped; before: "argument COMMAND: invalid choice: 'benc' (choose from …)"
        (("benc", "--rounds", "5"), "specview has no command benc; did you mean specview bench?"),
        (("sweep", "gama"), "specview sweep has no command gama; did you mean specview sweep gamma?"),
        (("config", "chek"), "specview config has no command chek; did you mean specview config check?"),
    ],
)
def test_an_unknown_option_is_named(args: tuple[str, ...], line: str) -> None:
    out = run(*args)
    assert out.returncode == 2, out
    assert out.stderr.splitlines() == [f"specview: error: {line}"]
    assert out.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ("calc", "--c", "0.05", "--alpha", "0.8", "--gamma", "4", "--json"),  # calc's own --c after the command
        ("--temp", "0", "--seed=5", "bench", "--rounds", "20", "--json"),  # unambiguous abbreviations, `=`
        ("bench", "--temperature", "0", "--rounds", "20", "--json", "--", ),
        ("watch", "--help"),
        ("--prom=two private words", "presets"),  # an abbreviation with a value holding spaces: argparse's --prompt
    ],
)
def test_known_options_still_parse(args: tuple[str, ...]) -> None:
    out = run(*args)
    assert out.returncode == 0, out.stderr


def test_values_are_not_taken_for_options() -> None:
    """A negative number is a value (argparse's rule): the range check answers, not the option check."""
    out = run("--temperature", "-1")
    assert out.stderr.splitlines() == ["specview: error: argument --temperature: --temperature must be between 0 "
                                       "and 5, got -1 (see specview --help)"]


def test_an_unknown_option_is_named_without_its_value() -> None:
    """A value may be private (a prompt, a key): the line names the option only."""
    out = run("--gama=my private words", "presets")
    assert out.returncode == 2
    assert out.stderr.splitlines() == ["specview: error: unknown option --gama; did you mean --gamma?"]
