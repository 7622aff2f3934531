"""`specview info`'s report as data: what `--json` prints and the text is read from.

Every value from outside (a path from the config or a variable, a variable's value, the text a
library or a binary printed) goes through `sanitize` here, once, before either output sees it; a
credential's value never enters the report (the API key, a variable whose name says it holds one).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from specview.boundary.path_kind import PathKind
from specview.boundary.secrets import public_url, secret_name
from specview.boundary.text import sanitize
from specview.features.info.settings import SECRET_KEYS, Setting

if TYPE_CHECKING:
    from specview.backends.local.build_probe import BuildFeatures
    from specview.catalog.config import Config
    from specview.features.info.paths import PlaceInfo

PATH_CHARS = 400
VALUE_CHARS = 200
# the CPU flags that decide llama.cpp's kernels (/proc/cpuinfo's spelling), in the order a reader compares them
CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni", "avx512f", "avx512_vnni", "avx512_bf16",
             "amx_tile", "amx_int8", "amx_bf16", "asimd", "sve")
KEY_ENV = "OPENAI_API_KEY"


def clean(text: object, limit: int = VALUE_CHARS) -> str:
    """A value from outside, safe to print on one line."""
    return sanitize(str(text), limit, one_line=True)


def kind_json(kind: PathKind | None) -> dict[str, Any] | None:
    if kind is None:
        return None
    return {"kind": kind.kind, "size": kind.size, "link": None if kind.link is None else clean(kind.link, PATH_CHARS),
            "dangling": kind.dangling, "errno": kind.error}


def place_json(place: PlaceInfo) -> dict[str, Any]:
    return {"id": place.id, "path": clean(place.path, PATH_CHARS), "wants": place.wants,
            "named_by": clean(place.named_by, 80), "what": kind_json(place.kind), "toml_files": place.toml_files,
            "written": place.written}


def _setting_value(setting: Setting) -> Any:
    value = setting.value
    if value is None or isinstance(value, bool | int | float):
        return value
    if setting.key in SECRET_KEYS:
        return "***"
    if setting.key == "keymap" and isinstance(value, dict):
        return {clean(k, 60): clean(v, 100) for k, v in list(value.items())[:200]}
    if setting.key == "url":
        return clean(public_url(str(value)) or "")
    return clean(value)


def settings_json(settings: list[Setting]) -> list[dict[str, Any]]:
    return [{"key": s.key, "value": _setting_value(s), "origin": str(s.source.origin),
             "where": clean(s.source.where, PATH_CHARS), "option": s.option} for s in settings]


def environment() -> dict[str, str | None]:
    """Every SPECVIEW_* variable set, and the API key variables: a credential's value as `***`."""
    names = sorted(name for name in os.environ if name.startswith("SPECVIEW_"))
    found: dict[str, str | None] = {}
    for name in [*names, KEY_ENV]:
        value = os.environ.get(name)
        if value is None:
            continue
        found[clean(name, 80)] = "***" if secret_name(name) and value else clean(value, PATH_CHARS)
    return found


def llama_json(build: BuildFeatures | None, repack: bool | None = None) -> dict[str, Any]:
    """The llama.cpp build (None: llama-cpp-python is not installed), this CPU, and whether a local run
    loads repacked weights (`repack`: what the options and the config ask, None: nothing)."""
    from specview.backends.local.cpu_features import (
        BUILD_AMX_FEATURE,
        CPU_AMX_FLAG,
        FEATURES_ENV,
        HostFeatures,
        choose_repack,
        cpu_flags,
        host_features,
    )

    build_words = frozenset(build.cpu_features()) if build else frozenset()
    host = (host_features(lambda: "") if os.environ.get(FEATURES_ENV) is not None
            else HostFeatures(cpu_flags(), build_words))
    cpu = {"flags": [flag for flag in CPU_FLAGS if flag in host.cpu], "amx": CPU_AMX_FLAG in host.cpu}
    if build is None:
        return {"installed": False, "cpu": cpu}
    failed = None if build.failed is None else clean(build.failed)
    out: dict[str, Any] = {"installed": True, "cpu": cpu, "failed": failed}
    if build.failed is None:
        out.update(backends=[clean(b, 40) for b in build.backends], gpu_offload=build.gpu_offload,
                   cuda=build.has("CUDA"), metal=build.has("Metal"), blas=build.has("BLAS"),
                   vulkan=build.has("Vulkan"), amx=BUILD_AMX_FEATURE in host.build,
                   cpu_features=[clean(f, 40) for f in build.cpu_features()],
                   sections={clean(k, 40): {clean(n, 40): clean(v, 80) for n, v in section.items()}
                             for k, section in build.sections.items()})
        choice = choose_repack(repack, host)  # as a local run decides it (backends/local/pool.py)
        out["repack"] = {"on": choice.repack, "note": choice.note.id}
    return out


def gather(args: argparse.Namespace, config: Config) -> dict[str, Any]:
    """The whole report, the llama.cpp build asked in a child process when it is installed."""
    from specview.backends.local.build_probe import installed, probe_build

    return assemble(args, config, probe_build() if installed() else None)


def assemble(args: argparse.Namespace, config: Config, build: BuildFeatures | None) -> dict[str, Any]:
    """The whole report around what the build said (None: llama-cpp-python is not installed)."""
    from specview.features.info.llama_server import find_llama_server
    from specview.features.info.paths import places
    from specview.features.info.settings import effective
    from specview.features.info.versions import versions

    server = find_llama_server()
    settings = effective(args, config)
    repack = next((s.value for s in settings if s.key == "repack"), None)
    return {
        "versions": {k: None if v is None else clean(v, PATH_CHARS) for k, v in versions().items()},
        "llama_cpp": llama_json(build, repack),
        "llama_server": {"path": None if server.path is None else clean(server.path, PATH_CHARS),
                         "named_by": server.named_by, "what": kind_json(server.kind),
                         "version": None if server.version is None else clean(server.version)},
        "paths": [place_json(p) for p in places(config)],
        "settings": settings_json(settings),
        "environment": environment(),
    }
