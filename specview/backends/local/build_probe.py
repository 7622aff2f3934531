"""What the installed llama.cpp build offers (CUDA, Metal, BLAS, the CPU features it was compiled
with), asked in a child process so that the asker never loads the library.

`specview info` wants the build's features, and only the library knows them: llama.cpp's system info
(`CPU : AVX2 = 1 | AMX_INT8 = 1 | … CUDA : ARCHS = 890 | …`), its answer to "can layers go to a GPU",
and the names of the ggml backends it registered (CPU, CUDA, Metal, BLAS, Vulkan…). Loading it here
would make the command heavy and let its start-up messages reach the terminal; the child's stderr
is dropped, its one line of JSON read back (bounded), and a child that hangs is killed after
TIMEOUT_S. Run as `python -m specview.backends.local.build_probe`, it is that child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

TIMEOUT_S = 30.0  # a first import of a CUDA build can take seconds; a hang must not hold the command
MAX_ANSWER_BYTES = 64 * 1024
MAX_BACKENDS = 64


@dataclass(frozen=True, slots=True)
class BuildFeatures:
    """The build's backends, its features by backend (`{"CPU": {"AVX2": "1", …}, "CUDA": {…}}`) and
    whether it offloads to a GPU; `failed` says why nothing could be asked (None when it was)."""

    backends: tuple[str, ...] = ()
    sections: dict[str, dict[str, str]] = field(default_factory=dict)
    gpu_offload: bool = False
    failed: str | None = None

    def has(self, backend: str) -> bool:
        """Whether the build carries `backend` (a registered backend, or a section of its system info)."""
        wanted = backend.lower()
        return any(name.lower() == wanted for name in (*self.backends, *self.sections))

    def cpu_features(self) -> list[str]:
        """The CPU features the build was compiled with (`NAME = 1` in its CPU section)."""
        return [name for name, value in self.sections.get("CPU", {}).items() if value == "1"]


def parse_system_info(text: str) -> dict[str, dict[str, str]]:
    """llama.cpp's system info by backend: `CPU : SSE3 = 1 | AVX = 1 | CUDA : ARCHS = 890 |` →
    {"CPU": {"SSE3": "1", "AVX": "1"}, "CUDA": {"ARCHS": "890"}}."""
    sections: dict[str, dict[str, str]] = {}
    current = ""
    for part in text.split("|"):
        head, sep, rest = part.partition(" : ")
        if sep:
            current = head.strip()
            sections.setdefault(current, {})
            part = rest
        name, eq, value = part.partition("=")
        if eq and name.strip():
            sections.setdefault(current, {})[name.strip()] = value.strip()
    return sections


def installed() -> bool:
    """Whether llama-cpp-python is installed (found, not imported)."""
    return find_spec("llama_cpp") is not None


def probe_build(timeout: float = TIMEOUT_S) -> BuildFeatures:
    """Ask a child process what the llama.cpp build offers (see the module docstring)."""
    package_root = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run([sys.executable, "-m", __name__], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=env, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return BuildFeatures(failed="timeout")
    except OSError as exc:
        return BuildFeatures(failed=type(exc).__name__)
    return read_answer(done.stdout[:MAX_ANSWER_BYTES], done.returncode)


def read_answer(raw: bytes, code: int) -> BuildFeatures:
    """The child's line as BuildFeatures: every field checked, since a broken library can print anything."""
    try:
        data: Any = json.loads(raw.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return BuildFeatures(failed=f"exit {code}")
    if not isinstance(data, dict):
        return BuildFeatures(failed=f"exit {code}")
    if isinstance(data.get("error"), str):
        return BuildFeatures(failed=data["error"][:200])
    backends = data.get("backends")
    names = tuple(str(b)[:40] for b in backends[:MAX_BACKENDS]) if isinstance(backends, list) else ()
    info = data.get("system_info")
    return BuildFeatures(names, parse_system_info(info if isinstance(info, str) else ""),
                         data.get("gpu_offload") is True)


def _ask() -> dict[str, Any]:
    """In the child: the library's own answers."""
    import ctypes

    try:
        import llama_cpp.llama_cpp as lib
    except (ImportError, OSError) as exc:
        return {"error": type(exc).__name__}
    from specview.compat.llama_compat import llama_library

    lib.llama_backend_init()
    library = llama_library(lib)
    backends: list[str] = []
    try:  # ggml's registry, through libllama (its dependency): every backend the build registered
        count = library.ggml_backend_reg_count
        count.restype = ctypes.c_size_t
        get = library.ggml_backend_reg_get
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
        name = library.ggml_backend_reg_name
        name.restype, name.argtypes = ctypes.c_char_p, [ctypes.c_void_p]
        backends = [(name(get(i)) or b"").decode("utf-8", "replace") for i in range(min(count(), MAX_BACKENDS))]
    except AttributeError:  # a build that does not export the registry: the system info still says
        pass
    info = bytes(lib.llama_print_system_info() or b"").decode("utf-8", "replace")
    return {"system_info": info, "gpu_offload": bool(lib.llama_supports_gpu_offload()), "backends": backends}


if __name__ == "__main__":
    print(json.dumps(_ask()), flush=True)
