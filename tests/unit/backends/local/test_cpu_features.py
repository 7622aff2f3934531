"""Which hosts load llama.cpp's weights without repacking: a CPU with AMX under a build that uses it."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.backends.local.cpu_features import (
    HostFeatures,
    build_features,
    choose_repack,
    cpu_flags,
    host_features,
)

INFO = ("CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | LLAMAFILE = 1 | OPENMP = 1 | "
        "REPACK = 1 | ")


def test_the_cpus_flags_come_from_the_first_flags_line(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu avx2 amx_tile amx_int8\n\nprocessor\t: 1\nflags\t: fpu\n")
    assert cpu_flags(info) == {"fpu", "avx2", "amx_tile", "amx_int8"}
    assert cpu_flags(tmp_path / "missing") == frozenset()


def test_the_builds_features_are_those_llama_cpp_says_are_on() -> None:
    found = build_features(INFO)
    assert {"AMX_INT8", "AVX2", "REPACK"} <= found and "CPU" not in found
    assert "AMX_INT8" not in build_features(INFO.replace("AMX_INT8 = 1", "AMX_INT8 = 0"))


@pytest.mark.parametrize(("cpu", "build", "asked", "repack", "note"), [
    ({"amx_tile"}, {"AMX_INT8"}, None, False, "repack_off_amx"),
    ({"amx_tile"}, set(), None, True, "repack_on"),  # a build without AMX kernels cannot crash in them
    (set(), {"AMX_INT8"}, None, True, "repack_on"),
    ({"amx_tile"}, {"AMX_INT8"}, True, True, "repack_asked_on"),
    (set(), set(), False, False, "repack_asked_off"),
])
def test_repacking_is_off_on_amx_hosts_unless_asked(cpu: set[str], build: set[str], asked: bool | None,
                                                    repack: bool, note: str) -> None:
    choice = choose_repack(asked, HostFeatures(frozenset(cpu), frozenset(build)))
    assert (choice.repack, choice.note.id) == (repack, note)


def test_the_feature_source_can_be_faked_and_llama_cpp_is_asked_only_on_an_amx_cpu(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked = []

    def info() -> str:
        asked.append(1)
        return INFO

    monkeypatch.setenv("SPECVIEW_CPU_FEATURES", "amx_tile, AMX_INT8")
    assert host_features(info).amx and not asked
    monkeypatch.setenv("SPECVIEW_CPU_FEATURES", "avx2")
    assert not host_features(info).amx
    monkeypatch.delenv("SPECVIEW_CPU_FEATURES")
    here = host_features(info)
    assert bool(asked) == ("amx_tile" in here.cpu)
