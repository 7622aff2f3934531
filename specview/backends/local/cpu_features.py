"""Whether this host runs llama.cpp's AMX kernels, and so whether models load with repacked weights.

llama.cpp's AMX matrix kernels (`ggml_backend_amx_mul_mat`) crash on some Intel CPUs with AMX
(Sapphire, Emerald and Granite Rapids: llama.cpp#20824, closed without a fix). The AMX code is one of
llama.cpp's "extra buffer types" (weights repacked for a CPU's own kernels); llama-server's
`--no-repack`, the model parameter `use_extra_bufts = false`, keeps weights out of them. specview loads
without them on a host whose CPU has AMX under a build that uses it, unless told (`--repack`,
`--no-repack` or the config's `repack`), and says which it did and why (a note of the run).

Where the facts come from: the CPU's flags from /proc/cpuinfo (`amx_tile`), the build's from
llama.cpp's system info (`AMX_INT8 = 1`). `SPECVIEW_CPU_FEATURES` (comma-separated words, e.g.
`amx_tile,AMX_INT8`) stands in for both: how a test shows the AMX branch on a CPU without AMX.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from specview.kernel.backend import Note

FEATURES_ENV = "SPECVIEW_CPU_FEATURES"
CPUINFO = Path("/proc/cpuinfo")
MAX_CPUINFO_BYTES = 1 << 20  # one core's flags line is ~1.5 kB; enough for the first cores
CPU_AMX_FLAG = "amx_tile"
BUILD_AMX_FEATURE = "AMX_INT8"

# the notes (texts/backend.<lang>.toml: note.<id>) a run carries, one of them
REPACK_ASKED_ON = "repack_asked_on"
REPACK_ASKED_OFF = "repack_asked_off"
REPACK_OFF_AMX = "repack_off_amx"
REPACK_ON = "repack_on"


@dataclass(frozen=True, slots=True)
class HostFeatures:
    """What the CPU offers and what the llama.cpp build was compiled with (words as each spells them)."""

    cpu: frozenset[str]
    build: frozenset[str]

    @property
    def amx(self) -> bool:
        """A CPU with AMX under a build that runs AMX kernels: the hosts llama.cpp#20824 crashes on."""
        return CPU_AMX_FLAG in self.cpu and BUILD_AMX_FEATURE in self.build


@dataclass(frozen=True, slots=True)
class RepackChoice:
    """Whether models load with llama.cpp's extra (repacked) buffer types, and the note saying why."""

    repack: bool
    note: Note


def choose_repack(asked: bool | None, host: HostFeatures) -> RepackChoice:
    """The user's word if given, else off on an AMX host and on elsewhere (llama.cpp's default)."""
    if asked is not None:
        return RepackChoice(asked, Note(REPACK_ASKED_ON if asked else REPACK_ASKED_OFF))
    if host.amx:
        return RepackChoice(False, Note(REPACK_OFF_AMX))
    return RepackChoice(True, Note(REPACK_ON))


def cpu_flags(path: Path = CPUINFO) -> frozenset[str]:
    """The CPU's flags from the first `flags` line of a /proc/cpuinfo-format file (none where unreadable)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(MAX_CPUINFO_BYTES).decode("ascii", "replace")
    except OSError:
        return frozenset()
    for line in head.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def build_features(system_info: str) -> frozenset[str]:
    """The features llama.cpp's system info says are on (`NAME = 1`)."""
    found = set()
    for part in system_info.split("|"):
        name, sep, value = part.rpartition("=")
        words = name.split()
        if sep and words and value.strip() == "1":
            found.add(words[-1])
    return frozenset(found)


def host_features(system_info: Callable[[], str]) -> HostFeatures:
    """This host's features (`system_info`: llama.cpp's, asked only when the CPU has AMX), or the
    stand-in from SPECVIEW_CPU_FEATURES."""
    fake = os.environ.get(FEATURES_ENV)
    if fake is not None:
        words = frozenset(w.strip() for w in fake.split(",") if w.strip())
        return HostFeatures(words, words)
    cpu = cpu_flags()
    build = build_features(system_info()) if CPU_AMX_FLAG in cpu else frozenset()
    return HostFeatures(cpu, build)


def amx_cpu() -> bool:
    """Whether this CPU has AMX (or SPECVIEW_CPU_FEATURES says so), without loading llama.cpp: the
    llama-server commands specview shows for this machine then carry `--no-repack`."""
    fake = os.environ.get(FEATURES_ENV)
    if fake is not None:
        return CPU_AMX_FLAG in {w.strip() for w in fake.split(",")}
    return CPU_AMX_FLAG in cpu_flags()
