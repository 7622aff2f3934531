"""Draft/target vocabulary compatibility (as llama.cpp checks it) and incremental token text."""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING

from specview.kernel.errors import BackendError
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.backends.local.model import ModelRunner

MAX_VOCAB_SIZE_DIFFERENCE = 128  # SPEC_VOCAB_MAX_SIZE_DIFFERENCE in common/speculative.cpp
CHECK_START_TOKEN_ID = 5  # SPEC_VOCAB_CHECK_START_TOKEN_ID
VOCAB_TYPES = {0: "none", 1: "SPM", 2: "BPE", 3: "WPM", 4: "UGM", 5: "RWKV", 6: "PLaMo-2", 7: "test"}


def vocab_mismatch(target: ModelRunner, draft: ModelRunner) -> Phrase | None:
    """Why `draft` cannot draft for `target` (None when it can): llama.cpp's own rules."""
    lib = target.lib
    vt, vd = target.vocab, draft.vocab
    type_t, type_d = int(lib.llama_vocab_type(vt)), int(lib.llama_vocab_type(vd))
    if type_t != type_d:
        return Phrase("backenderr.vocab.types", target=VOCAB_TYPES.get(type_t, type_t),
                      draft=VOCAB_TYPES.get(type_d, type_d))
    for name, add_fn, id_fn in (
        ("BOS", lib.llama_vocab_get_add_bos, lib.llama_vocab_bos),
        ("EOS", lib.llama_vocab_get_add_eos, lib.llama_vocab_eos),
    ):
        add_t, add_d = bool(add_fn(vt)), bool(add_fn(vd))
        id_t, id_d = int(id_fn(vt)), int(id_fn(vd))
        if add_t != add_d or (add_t and id_t != id_d):
            return Phrase("backenderr.vocab.special", name=name, add_t=str(add_t), id_t=id_t, add_d=str(add_d),
                          id_d=id_d)
    diff = abs(target.n_vocab - draft.n_vocab)
    if diff > MAX_VOCAB_SIZE_DIFFERENCE:
        return Phrase("backenderr.vocab.sizes", diff=diff, target=target.n_vocab, draft=draft.n_vocab,
                      most=MAX_VOCAB_SIZE_DIFFERENCE)
    for i in range(CHECK_START_TOKEN_ID, min(target.n_vocab, draft.n_vocab)):
        a, b = target.token_text(i), draft.token_text(i)
        if a != b:
            return Phrase("backenderr.vocab.token", i=i, target=_show(a), draft=_show(b))
    return None


def check_vocab(target: ModelRunner, draft: ModelRunner) -> None:
    """Raise BackendError naming the first difference that rules out speculation."""
    why = vocab_mismatch(target, draft)
    if why is not None:
        raise BackendError("backenderr.vocab.mismatch", draft=draft.name, target=target.name, why=why)


def _show(piece: bytes) -> str:
    return repr(piece.decode("utf-8", "replace"))


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
