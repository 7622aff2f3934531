"""`specview serve`: which addresses count as local, and the command line each browser tab runs."""

from __future__ import annotations

import shlex
import sys

import pytest

from specview.features.serve.access import is_loopback
from specview.features.serve.command import served_command
from specview.kernel.errors import CliError


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_loopback_addresses_are_local(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "example.org", "localhost.evil", ""])
def test_other_addresses_are_not_local(host: str) -> None:
    assert not is_loopback(host)


def test_served_command_is_this_python_running_specview_with_the_args_quoted() -> None:
    command = served_command(["--", "compare", "qwen3.6-mtp", "glm-5.2-mtp", "--prompt", "a b; rm -rf /"])
    assert shlex.split(command) == [sys.executable, "-m", "specview", "compare", "qwen3.6-mtp", "glm-5.2-mtp",
                                    "--prompt", "a b; rm -rf /"]


def test_serving_serve_is_refused() -> None:
    with pytest.raises(CliError, match="cannot serve itself"):
        served_command(["--", "serve"])
