"""Draft/target vocabulary compatibility (as llama.cpp checks it) and incremental token text."""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from specview.kernel.errors import BackendError
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.backends.local.model import ModelRunner

MAX_VOCAB_SIZE_DIFFERENCE = 128  # SPEC_VOCAB_MAX_SIZE_DIFFERENCE in common/speculative.cpp
CHECK_START_TOKEN_ID = 5  # SPEC_VOCAB_CHECK_START_TOKEN_ID
VOCAB_TYPES = {0: "none", 1: "SPM", 2: "BPE", 3: "WPM", 4: "UGM", 5: "RWKV", 6: "PLaMo-2", 7: "test"}


SHOWN = 60  # bytes of a differing piece shown


@dataclass(frozen=True, slots=True)
class Special:
    """One special token as both vocabularies handle it: whether each adds it, and its id."""

    name: str  # BOS or EOS
    add_target: bool
    id_target: int | None
    add_draft: bool
    id_draft: int | None


def rules_difference(kinds: tuple[object, object], specials: Iterable[Special], sizes: tuple[int, int],
                     pieces: Iterable[tuple[int, bytes, bytes]]) -> Phrase | None:
    """llama.cpp's rules (common/speculative.cpp) on what the two vocabularies say, however it was read
    (loaded models here, the files' metadata in gguf_vocab.py): the same type, the same BOS/EOS handling,
    sizes within MAX_VOCAB_SIZE_DIFFERENCE, the same pieces from CHECK_START_TOKEN_ID on (`pieces`: each id
    with the target's and the draft's piece, read only once the rules before it held). None: they agree."""
    if kinds[0] != kinds[1]:
        return Phrase("backenderr.vocab.types", target=kinds[0], draft=kinds[1])
    for sp in specials:
        if sp.add_target != sp.add_draft or (sp.add_target and sp.id_target != sp.id_draft):
            return Phrase("backenderr.vocab.special", name=sp.name, add_t=str(sp.add_target), id_t=sp.id_target,
                          add_d=str(sp.add_draft), id_d=sp.id_draft)
    diff = abs(sizes[0] - sizes[1])
    if diff > MAX_VOCAB_SIZE_DIFFERENCE:
        return Phrase("backenderr.vocab.sizes", diff=diff, target=sizes[0], draft=sizes[1],
                      most=MAX_VOCAB_SIZE_DIFFERENCE)
    for i, a, b in pieces:
        if a != b:
            return Phrase("backenderr.vocab.token", i=i, target=_show(a), draft=_show(b))
    return None


def vocab_mismatch(target: ModelRunner, draft: ModelRunner) -> Phrase | None:
    """Why `draft` cannot draft for `target` (None when it can): llama.cpp's own rules."""
    lib = target.lib
    vt, vd = target.vocab, draft.vocab
    type_t, type_d = int(lib.llama_vocab_type(vt)), int(lib.llama_vocab_type(vd))
    specials = (Special(name, bool(add_fn(vt)), int(id_fn(vt)), bool(add_fn(vd)), int(id_fn(vd)))
                for name, add_fn, id_fn in (("BOS", lib.llama_vocab_get_add_bos, lib.llama_vocab_bos),
                                            ("EOS", lib.llama_vocab_get_add_eos, lib.llama_vocab_eos)))
    pieces = ((i, target.token_text(i), draft.token_text(i))
              for i in range(CHECK_START_TOKEN_ID, min(target.n_vocab, draft.n_vocab)))
    return rules_difference((VOCAB_TYPES.get(type_t, type_t), VOCAB_TYPES.get(type_d, type_d)), specials,
                            (target.n_vocab, draft.n_vocab), pieces)


def check_vocab(target: ModelRunner, draft: ModelRunner) -> None:
    """Raise BackendError naming the first difference that rules out speculation."""
    why = vocab_mismatch(target, draft)
    if why is not None:
        raise BackendError("backenderr.vocab.mismatch", draft=draft.name, target=target.name, why=why)


def _show(piece: bytes) -> str:
    return repr(bytes(piece[:SHOWN]).decode("utf-8", "replace"))


class TextStream:
    """Turns token bytes into text incrementally: a token may hold half a character.

    Bytes that do not form a whole character yet stay buffered and appear with the
    token that completes them; nothing is lost (invalid bytes become U+FFFD).
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def push(self, piece: bytes) -> str:
        """Text completed by this token's bytes."""
        return self._decoder.decode(piece)

    def peek(self, piece: bytes) -> str:
        """What `push` would return, without consuming (for drafts that may be rejected)."""
        state = self._decoder.getstate()
        try:
            return self._decoder.decode(piece)
        finally:
            self._decoder.setstate(state)

    def peek_run(self, pieces: list[bytes]) -> list[str]:
        """The texts `push` would return for these pieces in a row, without consuming any."""
        state = self._decoder.getstate()
        try:
            return [self._decoder.decode(piece) for piece in pieces]
        finally:
            self._decoder.setstate(state)

    def flush(self) -> str:
        """Whatever is left at the end of generation."""
        return self._decoder.decode(b"", final=True)
