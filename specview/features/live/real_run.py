"""How to run a preset for real: the engines' commands, and the specview command that watches each.

A preset's `[run]` table is keyed by server kind id (`llama-server`, `vllm`, `sglang`: the names
`--server` takes); each server kind says how its engine is named and which port it listens on
unless told (`ServerProgram`), so specview keeps no engine list of its own. Every llama-server command a
preset ships carries `--metrics` (specview cross-checks its counts with /metrics), and each
command is followed by `specview --url …` at the port the server listens on (its `--port`, else
the engine's default).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from specview.catalog.presets import Preset


@dataclass(frozen=True, slots=True)
class ServerProgram:
    """A server family that presets can run for real: its name over the commands, and its port."""

    title: str
    default_port: int


@dataclass(frozen=True, slots=True)
class RealRun:
    """One engine's command for a preset, and the specview command that watches it (None when the
    preset names an engine specview does not know, whose port it cannot tell)."""

    engine: str
    title: str
    command: str
    watch: str | None
    removed_in: str | None = None  # the engine's first version without this command's method (untrusted text)


def port_of(command: str, default: int) -> int:
    """The `--port` a command line asks for, else `default`."""
    try:
        words = shlex.split(command)
    except ValueError:
        return default
    for flag, value in pairwise(words):
        if flag == "--port" and value.isdigit():
            return int(value)
    return default


def watch_command(command: str, default_port: int, host: str = "127.0.0.1") -> str:
    """The specview command that watches a server started with `command`."""
    return f"specview --url http://{host}:{port_of(command, default_port)}/v1"


NO_REPACK = "--no-repack"  # llama-server on a CPU with AMX (backends/local/cpu_features.py)


def real_runs(preset: Preset, engines: Mapping[str, ServerProgram], *, no_repack: bool = False) -> list[RealRun]:
    """The preset's engine commands in the engines' order, each with its watch command; a key that
    names no engine (a user preset's) comes last under its own name, so no command goes unshown.
    `no_repack` (this machine's CPU has AMX): llama-server's commands get `--no-repack`."""
    def command(key: str) -> str:
        line = preset.run[key]
        return f"{line} {NO_REPACK}" if no_repack and key == "llama-server" and NO_REPACK not in line else line

    removed = preset.run_removed
    known = [RealRun(key, engine.title, command(key), watch_command(command(key), engine.default_port),
                     removed.get(key)) for key, engine in engines.items() if key in preset.run]
    return known + [RealRun(key, key, command, None, removed.get(key))
                    for key, command in preset.run.items() if key not in engines]
