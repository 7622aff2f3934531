"""How to run a preset for real: the engines' commands, and the specview command that watches each.

Every llama-server command a preset ships carries `--metrics` (specview cross-checks its
counts with /metrics), and each command is followed by `specview --url …` at the port the
server listens on (its `--port`, else the engine's default).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from itertools import pairwise

from specview.core.presets import Preset

# (key in a preset's [run] table, display name, default port)
ENGINES = (("llama_server", "llama.cpp llama-server", 8080), ("vllm", "vLLM", 8000), ("sglang", "SGLang", 30000))


@dataclass(frozen=True, slots=True)
class RealRun:
    """One engine's command for a preset, and the specview command that watches it."""

    engine: str
    title: str
    command: str
    watch: str


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


def real_runs(preset: Preset) -> list[RealRun]:
    """The preset's engine commands in a fixed engine order, each with its watch command."""
    return [
        RealRun(key, title, preset.run[key], watch_command(preset.run[key], port))
        for key, title, port in ENGINES
        if key in preset.run
    ]
