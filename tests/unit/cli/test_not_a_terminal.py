"""Whether a screen can be drawn (cli/not_a_terminal.py): standard output a terminal, or textual-serve's
driver; anywhere else a UI command is refused with the command that prints instead."""

from __future__ import annotations

import io
import sys

import pytest

from specview.cli.not_a_terminal import need_terminal, output_is_terminal
from specview.kernel.errors import CliError
from specview.texts.catalog import Phrase


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _no_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)


def test_a_pipe_is_refused_with_the_command_that_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert not output_is_terminal()
    with pytest.raises(CliError) as refused:
        need_terminal(Phrase("not_a_terminal.what.learn"), "specview learn 3 --json")
    assert refused.value.in_language("en") == (
        "Learn needs a terminal and standard output is not one (a pipe or a file); "
        "for output a pipe can take, run specview learn 3 --json")
    chinese = refused.value.in_language("zh")
    assert chinese.startswith("Learn 讲解需要终端") and chinese.endswith("specview learn 3 --json")


def test_no_standard_output_at_all_is_no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    assert not output_is_terminal()


def test_a_terminal_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", Tty())
    assert output_is_terminal()
    need_terminal(Phrase("not_a_terminal.what.live"), "specview bench --json")


def test_textual_serves_driver_draws_through_its_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """textual-serve runs each served specview with pipes and names its web driver in TEXTUAL_DRIVER."""
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    assert output_is_terminal()
    need_terminal(Phrase("not_a_terminal.what.compare"), "specview bench SELECTOR… --json")
