"""Whether two GGUFs share a vocabulary, from their tokenizer metadata alone (no model loaded).

`specview doctor --target T.gguf --draft D.gguf` asks this before any run: llama.cpp refuses a draft
whose vocabulary is not the target's (vocab.py's `vocab_mismatch` applies its rules to loaded
models; here the same rules are applied to what the files declare): the same tokenizer type
(`tokenizer.ggml.model`), the same BOS/EOS handling, sizes within MAX_VOCAB_SIZE_DIFFERENCE, and
the same pieces from CHECK_START_TOKEN_ID on. The files are untrusted: the header is walked in place
by gguf_info's bounded walker (every length checked against the file), the token arrays are
compared piece by piece in the two mmaps (nothing per token is built), and a file that cannot be
read is a BackendError naming it.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specview.backends.local.gguf_info import MAX_ITEMS, GgufWalk, read_header
from specview.backends.local.vocab import CHECK_START_TOKEN_ID, Special, rules_difference
from specview.boundary.safe_files import open_regular
from specview.kernel.errors import BackendError
from specview.kernel.os_reason import os_reason
from specview.texts.catalog import Phrase

TOKENS = "tokenizer.ggml.tokens"
_STRING, _ARRAY = 8, 9
# tokenizer.ggml.model → llama.cpp's vocabulary type names (vocab.py's VOCAB_TYPES)
TYPES = {"llama": "SPM", "gpt2": "BPE", "bert": "WPM", "t5": "UGM", "rwkv": "RWKV", "plamo2": "PLaMo-2",
         "none": "none", "no_vocab": "none"}


@dataclass(frozen=True, slots=True)
class Vocab:
    """What one GGUF declares of its tokenizer; `tokens_at` is where its first piece starts."""

    model: str | None
    size: int
    tokens_at: int
    bos: int | None
    eos: int | None
    add_bos: bool | None
    add_eos: bool | None

    @property
    def kind(self) -> str:
        return TYPES.get(self.model or "", self.model or "none")

    def adds(self, which: str) -> bool:
        """Whether it adds BOS/EOS: as declared, else llama.cpp's default for its type (SPM adds BOS)."""
        declared = self.add_bos if which == "BOS" else self.add_eos
        return declared if declared is not None else (which == "BOS" and self.kind == "SPM")


def vocab_difference(target: str | Path, draft: str | Path) -> Phrase | None:
    """Why the draft cannot draft for the target by their files (None when they can, by these rules)."""
    with _mapped(Path(target)) as (t_data, t), _mapped(Path(draft)) as (d_data, d):
        specials = (Special(name, t.adds(name), id_t, d.adds(name), id_d)
                    for name, id_t, id_d in (("BOS", t.bos, d.bos), ("EOS", t.eos, d.eos)))
        return rules_difference((t.kind, d.kind), specials, (t.size, d.size), _pieces(t_data, t, d_data, d))


def _pieces(t_data: Any, t: Vocab, d_data: Any, d: Vocab) -> Iterator[tuple[int, bytes, bytes]]:
    """Each id from CHECK_START_TOKEN_ID with both pieces, walked in the two maps (both arrays were bounded
    when read)."""
    pt, pd = t.tokens_at, d.tokens_at
    for i in range(min(t.size, d.size)):
        (nt,), (nd,) = struct.unpack_from("<Q", t_data, pt), struct.unpack_from("<Q", d_data, pd)
        if i >= CHECK_START_TOKEN_ID:
            yield i, bytes(t_data[pt + 8 : pt + 8 + nt]), bytes(d_data[pd + 8 : pd + 8 + nd])
        pt, pd = pt + 8 + nt, pd + 8 + nd


@contextmanager
def _mapped(path: Path) -> Iterator[tuple[Any, Vocab]]:
    """The file mapped read-only and its tokenizer metadata; BackendError naming it when unreadable."""
    with ExitStack() as stack:
        try:
            fh = stack.enter_context(open_regular(path))
            data = stack.enter_context(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
        except OSError as exc:
            raise BackendError("backenderr.gguf.unreadable", path=str(path), reason=os_reason(exc)) from None
        except ValueError as exc:  # mmap of an empty file
            raise BackendError("backenderr.gguf.empty", path=str(path), reason=str(exc)) from None
        yield data, _read(GgufWalk(data, path), path)


def _read(walk: GgufWalk, path: Path) -> Vocab:
    _, n_keys = read_header(walk, path)
    meta: dict[str, Any] = {}
    size = tokens_at = 0
    for _ in range(n_keys):
        key = walk.string(name=True)
        kind = walk.take("<I")
        if key == TOKENS and kind == _ARRAY:
            start = walk.pos
            item, count = walk.take("<I"), walk.take("<Q")
            if item == _STRING and count <= MAX_ITEMS:
                size, tokens_at = count, walk.pos
            walk.pos = start
        meta[key] = walk.value(kind, key)  # every length checked (an array skipped, bounded)
    return Vocab(_text(meta.get("tokenizer.ggml.model")), size, tokens_at,
                 _int(meta.get("tokenizer.ggml.bos_token_id")),
                 _int(meta.get("tokenizer.ggml.eos_token_id")), _bool(meta.get("tokenizer.ggml.add_bos_token")),
                 _bool(meta.get("tokenizer.ggml.add_eos_token")))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None
