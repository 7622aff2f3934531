"""What a GGUF file says about its model: metadata and tensor table, no llama.cpp, no weights loaded.

Used by the Learn screens: the model's size (parameters, bytes of weights) and the real shapes of
its feature–token fusion tensors (MTP/NextN `eh_proj`, EAGLE `fc`). A GGUF file is untrusted: its
counts are checked before the reader allocates anything, values are walked with an explicit
stack (arrays of arrays nest at most MAX_DEPTH deep, never through Python's recursion), the
model's shape keys must be integers in sane ranges, and every name it holds is sanitised.
"""

from __future__ import annotations

import mmap
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specview.backends.reason import reason_of
from specview.boundary.bounds import Invalid, integer
from specview.boundary.safe_files import open_regular
from specview.boundary.text import sanitize
from specview.kernel.errors import BackendError
from specview.kernel.os_reason import os_reason

GGUF_MAGIC = b"GGUF"
MAX_TENSORS = 100_000
MAX_KEYS = 100_000
MAX_SHOWN = 16  # fusion tensors listed at most
MAX_NAME_BYTES = 64 * 1024  # a key or tensor name (ggml's own limit is 64): longer is not a GGUF we read
MAX_VALUE_BYTES = 64 * 1024  # a string value kept (a longer one, e.g. a chat template, is skipped)
NAME_CHARS = 120  # of a name as the screens show it
MAX_DEPTH = 4  # arrays of arrays (llama.cpp reads none; the format allows them)
MAX_ITEMS = 2**24  # items of one array of strings or arrays (a 262k vocabulary is 2^18)
MAX_LAYERS = 16_384
# `<arch>.<key>`: what the model's shape may be (lowest, highest); a key that is absent, or an
# array (per-layer values), is not checked. Far beyond any real model, far below a count that
# would make the screens' numbers nonsense (2^64 − 1, negative, NaN).
SHAPE_KEYS: dict[str, tuple[int, int]] = {
    "embedding_length": (1, 2**20),
    "block_count": (1, MAX_LAYERS),
    "feed_forward_length": (0, 2**24),
    "context_length": (1, 2**31),
    "vocab_size": (1, 2**24),
    "attention.head_count": (0, 2**16),  # 0 for attention-free blocks (Mamba)
    "attention.head_count_kv": (0, 2**16),
    "nextn_predict_layers": (0, MAX_LAYERS),
}
# Fusion tensors: NextN/MTP eh_proj and its norms (llama.cpp names), EAGLE-style fc layers.
FUSION = re.compile(r"(nextn\.(eh_proj|enorm|hnorm)|(^|\.)fc)\.weight$")


@dataclass(frozen=True, slots=True)
class TensorShape:
    """One tensor: sanitised name, shape in numpy order (rows, columns), ggml type name."""

    name: str
    shape: tuple[int, ...]
    kind: str


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """A GGUF's architecture, width, MTP block count, size and fusion tensors."""

    name: str
    architecture: str
    n_embd: int | None
    nextn_layers: int
    n_tensors: int
    params: int
    weight_bytes: int
    fusion: tuple[TensorShape, ...]


# GGUF metadata value types -> size in bytes (8 = string, 9 = array are handled apart).
_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
MAX_DIMS = 8


class GgufWalk:
    """Reads a GGUF header in place (mmap), checking every length against the file's size.

    gguf's GGUFReader builds a Python object per array element: ~25 s for a 262k-token vocabulary
    on this machine. Walking the header ourselves and skipping arrays takes a fraction of a second;
    the gguf package still names the tensor types and gives their block sizes.
    """

    def __init__(self, data: bytes | mmap.mmap, path: Path) -> None:
        self.data, self.pos, self.path = data, 0, path

    def take(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise BackendError("backenderr.gguf.cut_off", path=str(self.path))
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value

    def string(self, *, name: bool = False) -> str:
        """A string; a name longer than MAX_NAME_BYTES is refused, a value longer than
        MAX_VALUE_BYTES skipped (read as ""), so nothing large is copied out of the file."""
        n = self.take("<Q")
        if self.pos + n > len(self.data):
            raise BackendError("backenderr.gguf.cut_off", path=str(self.path))
        if name and n > MAX_NAME_BYTES:
            raise BackendError("backenderr.gguf.long_name", path=str(self.path), bytes=n)
        raw = self.data[self.pos : self.pos + n] if n <= MAX_VALUE_BYTES else b""
        self.pos += n
        return bytes(raw).decode("utf-8", errors="replace")

    def value(self, kind: int, key: str) -> Any:
        """One metadata value: a scalar, a string (see `string`), or None for an array, which is
        skipped; `key` names it in an error."""
        if kind in _SCALAR:
            return self.take(_SCALAR[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            self._skip_array(key)
            return None
        raise BackendError("backenderr.gguf.value_type", path=str(self.path), key=repr(_shown(key)), kind=kind)

    def _skip_array(self, key: str) -> None:
        """Jump over an array (and the arrays inside it) with a stack instead of recursion: one
        entry per array of arrays still open, the arrays it has left. Depth and item counts are
        bounded, every length checked."""
        stack: list[int] = []
        while True:
            item, count = self.take("<I"), self.take("<Q")
            if item in _SCALAR:  # fixed-size items: jump over them
                self.skip(struct.calcsize(_SCALAR[item]) * count)
            elif item in (_STRING, _ARRAY):
                if count > MAX_ITEMS:
                    raise BackendError("backenderr.gguf.array_items", path=str(self.path), key=repr(_shown(key)),
                                       count=count, most=MAX_ITEMS)
                if item == _STRING:
                    self._skip_strings(count)
                elif count:
                    if len(stack) + 1 >= MAX_DEPTH:
                        raise BackendError("backenderr.gguf.array_depth", path=str(self.path),
                                           key=repr(_shown(key)), most=MAX_DEPTH)
                    stack.append(count)
            else:
                raise BackendError("backenderr.gguf.array_type", path=str(self.path), key=repr(_shown(key)),
                                   item=item)
            while stack and stack[-1] == 0:
                stack.pop()
            if not stack:
                return
            stack[-1] -= 1  # the next value is the next array of the innermost one still open

    def _skip_strings(self, count: int) -> None:
        """Jump over `count` strings (e.g. a tokenizer's pieces), from length to length."""
        data, pos, end = self.data, self.pos, len(self.data)
        for _ in range(count):
            if pos + 8 > end:
                raise BackendError("backenderr.gguf.cut_off", path=str(self.path))
            pos += 8 + struct.unpack_from("<Q", data, pos)[0]
        if pos > end:
            raise BackendError("backenderr.gguf.cut_off", path=str(self.path))
        self.pos = pos

    def skip(self, size: int) -> None:
        if self.pos + size > len(self.data):
            raise BackendError("backenderr.gguf.cut_off", path=str(self.path))
        self.pos += size


def _shown(name: str) -> str:
    """A name from the file (or its file name) as the screens may show it: safe and short."""
    return sanitize(name, NAME_CHARS, one_line=True)


def read_gguf_info(path: str | Path) -> ModelInfo:
    """Read a GGUF's metadata and tensor table; BackendError with a reason when it cannot."""
    path = Path(path)
    try:
        from gguf import GGML_QUANT_SIZES, GGMLQuantizationType
    except ImportError:
        raise BackendError("backenderr.gguf.no_package") from None
    try:
        with open_regular(path) as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _read(GgufWalk(data, path), path, GGML_QUANT_SIZES, GGMLQuantizationType)
    except OSError as exc:
        raise BackendError("backenderr.gguf.unreadable", path=str(path), reason=os_reason(exc)) from None
    except ValueError as exc:  # mmap of an empty file
        raise BackendError("backenderr.gguf.empty", path=str(path), reason=str(exc)) from None


def _shape(meta: dict[str, Any], arch: str, path: Path) -> dict[str, int]:
    """The model's shape keys that are present (SHAPE_KEYS, without the `<arch>.` prefix), each
    an integer in its range; a bool, a float (NaN) or a count out of range is a BackendError
    naming the key. An array (per-layer values) is not read, so not checked."""
    found: dict[str, int] = {}
    for name, (low, high) in SHAPE_KEYS.items():
        key = f"{arch}.{name}"
        value = meta.get(key)
        if value is None:
            continue
        try:
            found[name] = integer(value, _shown(key), low, high)
        except Invalid as exc:
            raise BackendError("backenderr.gguf.bad_key", path=str(path), reason=reason_of(exc)) from None
    blocks, nextn = found.get("block_count"), found.get("nextn_predict_layers", 0)
    if blocks is not None and nextn > blocks:
        raise BackendError("backenderr.gguf.nextn", path=str(path), arch=_shown(arch), nextn=nextn, blocks=blocks)
    return found


def read_header(walk: GgufWalk, path: Path) -> tuple[int, int]:
    """The file's tensor and key counts, the walk left at its first key; BackendError naming the file when
    it is no GGUF or declares more than any model has."""
    if bytes(walk.data[:4]) != GGUF_MAGIC:
        raise BackendError("backenderr.gguf.not_gguf", path=str(path))
    walk.pos = 4
    version, n_tensors, n_keys = walk.take("<I"), walk.take("<Q"), walk.take("<Q")
    if version < 2 or n_tensors > MAX_TENSORS or n_keys > MAX_KEYS:
        raise BackendError("backenderr.gguf.header", path=str(path), version=version, tensors=n_tensors, keys=n_keys)
    return n_tensors, n_keys


def _read(walk: GgufWalk, path: Path, sizes: Any, types: Any) -> ModelInfo:
    n_tensors, n_keys = read_header(walk, path)
    meta: dict[str, Any] = {}
    for _ in range(n_keys):
        key = walk.string(name=True)
        kind = walk.take("<I")
        meta[key] = walk.value(kind, key)
    arch_raw = meta.get("general.architecture")
    arch = _shown(arch_raw) if isinstance(arch_raw, str) and arch_raw else "?"
    shape = _shape(meta, arch_raw if isinstance(arch_raw, str) else "", path)
    params = weight_bytes = 0
    fusion: list[TensorShape] = []
    for _ in range(n_tensors):
        name = walk.string(name=True)
        n_dims = walk.take("<I")
        if n_dims > MAX_DIMS:
            raise BackendError("backenderr.gguf.dims", path=str(path), tensor=repr(_shown(name)), dims=n_dims)
        dims = [walk.take("<Q") for _ in range(n_dims)]
        kind = walk.take("<I")
        walk.take("<Q")  # data offset
        elements = 1
        for d in dims:
            elements *= d
        if elements > len(walk.data) * 8:  # no type packs more than 8 weights in a byte
            raise BackendError("backenderr.gguf.weights", path=str(path), tensor=repr(_shown(name)),
                               weights=elements, bytes=len(walk.data))
        try:
            type_name = types(kind).name
            block, type_size = sizes[types(kind)]
        except (ValueError, KeyError):
            raise BackendError("backenderr.gguf.tensor_type", path=str(path), tensor=repr(_shown(name)),
                               kind=kind) from None
        params += elements
        weight_bytes += elements // block * type_size
        if FUSION.search(name) and len(fusion) < MAX_SHOWN:
            # ggml lists the fastest-moving dimension first; numpy order is the reverse
            fusion.append(TensorShape(_shown(name), tuple(reversed(dims)), type_name))
    return ModelInfo(
        name=_shown(path.name),
        architecture=arch,
        n_embd=shape.get("embedding_length"),
        nextn_layers=shape.get("nextn_predict_layers", 0),
        n_tensors=n_tensors,
        params=params,
        weight_bytes=weight_bytes,
        fusion=tuple(fusion),
    )
