"""`--on-alert`: at most once per alert per window, and a command line never given to a shell."""

from __future__ import annotations

import pytest

from specview.features.watch.model.fleet import Alert, AlertKind
from specview.features.watch.runner.alert_hook import AlertHook, command_argv
from specview.kernel.errors import CliError


def test_due_once_per_alert_per_window() -> None:
    now = [0.0]
    hook = AlertHook("true", window_s=30.0, clock=lambda: now[0])
    down_a, down_b = Alert(AlertKind.DOWN, "a", 0.0), Alert(AlertKind.DOWN, "b", 0.0)
    stalled_a = Alert(AlertKind.STALLED, "a", 0.0)
    assert hook.due((down_a, down_b)) == [down_a, down_b]
    now[0] = 10.0
    assert hook.due((down_a, down_b, stalled_a)) == [stalled_a]  # a new kind on a is its own alert
    now[0] = 29.9
    assert hook.due((down_a,)) == []
    now[0] = 30.0
    assert hook.due((down_a, down_b)) == [down_a, down_b]  # still firing a window later: again


def test_the_command_is_split_not_given_to_a_shell() -> None:
    assert command_argv("notify-send 'specview alert' --urgency=critical") == [
        "notify-send", "specview alert", "--urgency=critical"]
    assert command_argv("echo $HOME; rm -rf /") == ["echo", "$HOME;", "rm", "-rf", "/"]  # words, not a script
    with pytest.raises(CliError, match="cannot be split"):
        command_argv("echo 'unclosed")
    with pytest.raises(CliError, match="empty"):
        command_argv("   ")
