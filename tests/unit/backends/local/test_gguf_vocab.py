"""Whether two GGUFs share a vocabulary, from their files alone (gguf_vocab.py): tiny GGUFs written
with the `gguf` package, the same ones the local engine loads in the integration tests."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from specview.backends.local.gguf_vocab import vocab_difference
from specview.kernel.errors import BackendError
from tests.support.gguf_factory import tiny_vocab, write_tiny_llama


def vocab_only(path: Path, tokens: list[str], *, model: str = "llama", bos: int = 1) -> Path:
    """A metadata-only GGUF: a tokenizer, one tensor (not meant to be loaded)."""
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tokenizer_model(model)
    w.add_token_list(tokens)
    w.add_bos_token_id(bos)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)
    w.add_tensor("token_embd.weight", np.zeros((4, 4), np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_the_same_vocabulary_is_no_difference(tmp_path: Path) -> None:
    target = write_tiny_llama(tmp_path / "t.gguf", seed=0)
    draft = write_tiny_llama(tmp_path / "d.gguf", seed=5)  # other weights, the same tokenizer
    assert vocab_difference(target, draft) is None


def test_a_piece_that_differs_is_named_with_its_id(tmp_path: Path) -> None:
    target = write_tiny_llama(tmp_path / "t.gguf")
    draft = write_tiny_llama(tmp_path / "d.gguf", vocab="other-pieces")
    why = vocab_difference(target, draft)
    n = len(tiny_vocab()[0])
    assert why is not None and why.key == "backenderr.vocab.token"
    assert why.render("en") == f"token {n - 2} differs: target '▁ran', draft '▁by'"  # the first of the two changed


def test_another_tokenizer_type_and_sizes_beyond_llamas_limit(tmp_path: Path) -> None:
    tokens = tiny_vocab()[0]
    target = vocab_only(tmp_path / "t.gguf", tokens)
    bpe = vocab_only(tmp_path / "bpe.gguf", tokens, model="gpt2")
    big = vocab_only(tmp_path / "big.gguf", tokens + [f"x{i}" for i in range(200)])
    other_bos = vocab_only(tmp_path / "bos.gguf", tokens, bos=3)
    types = vocab_difference(target, bpe)
    assert types is not None and types.render("en") == "vocabulary types differ: target SPM, draft BPE"
    sizes = vocab_difference(target, big)
    assert sizes is not None and "differ by 200" in sizes.render("en") and "at most 128" in sizes.render("en")
    special = vocab_difference(target, other_bos)
    assert special is not None and special.key == "backenderr.vocab.special" and "id 3" in special.render("en")
    near = vocab_only(tmp_path / "near.gguf", [*tokens, "▁extra"])  # one more token, the rest the same
    assert vocab_difference(target, near) is None


def test_a_file_that_is_not_a_gguf_is_an_error_naming_it(tmp_path: Path) -> None:
    target = write_tiny_llama(tmp_path / "t.gguf")
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a gguf at all")
    with pytest.raises(BackendError) as err:
        vocab_difference(target, junk)
    assert "junk.gguf" in str(err.value.phrase.render("en"))
