"""Loaded GGUF models, shared: one llama_model per file while anyone uses it.

llama.cpp lets one model serve several contexts, each with its own cache: `diff`'s plain and
speculative runs, a draft that is the target file itself, the replay of a verify schedule all
read one copy of the weights. A model is freed when its last user lets go, unless a `keep()`
scope is open: a sweep holds its models loaded between runs that would otherwise free and load
them again. `loads` counts real loads (what the tests read).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from specview.backends.local.cpu_features import RepackChoice, choose_repack, host_features
from specview.backends.local.lib import llama_lib
from specview.backends.local.log import LOG
from specview.backends.reason import role_word
from specview.kernel.errors import BackendError
from specview.kernel.os_reason import os_reason

ALL_LAYERS = 2**31 - 1

# (real path, device, inode, size, mtime, layers, repacked): a file replaced or rewritten is a new model
Key = tuple[str, int, int, int, int, int, bool]


@dataclass(eq=False, slots=True)
class LoadedModel:
    """One llama_model and who uses it."""

    key: Key
    model: Any  # llama_model *
    load_lines: tuple[str, ...]  # llama.cpp's log of the load (devices, offload): logged once per load
    repack: RepackChoice  # loaded with llama.cpp's extra (repacked) buffer types or not, and why
    users: int = 0
    # contexts of one model decode one at a time: llama.cpp promises one thread per object, and
    # concurrent decodes on contexts of one model have crashed other bindings (a Learn screen's
    # forward runs on a worker thread while the live run decodes on its own)
    lock: threading.Lock = field(default_factory=threading.Lock)


class ModelPool:
    """The process's loaded models (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[Key, LoadedModel] = {}
        self._keeping = 0
        self.loads = 0

    def acquire(self, path: Path, role: str, n_gpu_layers: int, repack: bool | None = None) -> LoadedModel:
        """The model at `path` with `n_gpu_layers` offloaded (< 0: all), loaded if nobody holds it;
        with repacked weights as `repack` says (None: as this host needs, cpu_features.py)."""
        layers = ALL_LAYERS if n_gpu_layers < 0 else n_gpu_layers
        choice = choose_repack(repack, host_features(system_info))
        key = _key(path, layers, role, choice.repack)
        with self._lock:  # a second user of the same file waits for the first load, then shares it
            found = self._models.get(key)
            if found is None:
                found = self._models[key] = _load(path, role, layers, key, choice)
                self.loads += 1
            found.users += 1
            return found

    @property
    def held(self) -> int:
        """Models loaded now."""
        with self._lock:
            return len(self._models)

    def release(self, loaded: LoadedModel) -> None:
        """One user fewer; the last one frees the model (after the outermost `keep()` when one is open)."""
        with self._lock:
            loaded.users -= 1
            if loaded.users <= 0 and not self._keeping:
                self._free(loaded)

    @contextmanager
    def keep(self) -> Iterator[None]:
        """Models loaded inside stay loaded until the scope ends, even between users."""
        with self._lock:
            self._keeping += 1
        try:
            yield
        finally:
            with self._lock:
                self._keeping -= 1
                if not self._keeping:
                    for loaded in [m for m in self._models.values() if m.users <= 0]:
                        self._free(loaded)

    def _free(self, loaded: LoadedModel) -> None:
        if self._models.get(loaded.key) is loaded:
            del self._models[loaded.key]
            llama_lib().llama_model_free(loaded.model)


def system_info() -> str:
    """llama.cpp's system info: the build's features (`AMX_INT8 = 1`, ...)."""
    return bytes(llama_lib().llama_print_system_info() or b"").decode("utf-8", "replace")


def _key(path: Path, layers: int, role: str, repack: bool) -> Key:
    try:
        st = path.stat()
    except OSError as exc:
        raise BackendError("backenderr.pool.unreadable", role=role_word(role), path=str(path),
                           reason=os_reason(exc)) from None
    return (os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, layers, repack)


def _load(path: Path, role: str, layers: int, key: Key, repack: RepackChoice) -> LoadedModel:
    lib = llama_lib()
    params = lib.llama_model_default_params()
    params.n_gpu_layers = layers
    params.use_extra_bufts = repack.repack
    mark, lines = LOG.mark(), LOG.line_mark()
    model = lib.llama_model_load_from_file(str(path).encode(), params)
    if not model:
        why = LOG.errors_since(mark)
        if why:
            raise BackendError("backenderr.pool.not_loaded", role=role_word(role), path=str(path), why=why[0])
        raise BackendError("backenderr.pool.not_loaded_unsaid", role=role_word(role), path=str(path))
    return LoadedModel(key, model, tuple(LOG.lines_since(lines)), repack)


POOL = ModelPool()
