"""Tiny random llama GGUFs, written at test time with the `gguf` package (a couple of MB each).

The output layer is scaled up ("peaky") so greedy argmaxes are never near-ties, which makes
exact comparisons between differently batched evaluations meaningful.
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np

N_EMBD = 128
N_HEAD = 2  # head_dim 64: what GPU flash-attention kernels support
N_FF = 256
N_LAYER = 2


def tiny_vocab(variant: str = "base") -> tuple[list[str], list[int]]:
    """An SPM vocabulary: specials, the 256 byte tokens, '▁', printable ASCII and a few words."""
    words = ["▁the", "▁cat", "▁sat", "▁on", "▁mat", "▁and", "▁a", "▁dog", "▁ran", "▁to"]
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + ["▁"]
    tokens += [chr(c) for c in range(0x21, 0x7F)] + words
    types = [2, 3, 3] + [6] * 256 + [1] * (1 + 94 + len(words))
    if variant == "other-pieces":
        tokens[-1], tokens[-2] = "▁from", "▁by"
    return tokens, types


def add_vocab(w: gguf.GGUFWriter, tokens: list[str], types: list[int]) -> None:
    """The SPM tokenizer of `tiny_vocab` (<unk> <s> </s> first; BOS added) and F32 weights."""
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_vocab_size(len(tokens))
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_scores([0.0] * len(tokens))
    w.add_unk_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)


def write_tiny_llama(
    path: Path,
    *,
    seed: int = 0,
    noise: float = 0.0,
    noise_seed: int = 1,
    out_scale: float = 6.0,
    n_ctx: int = 2048,
    vocab: str = "base",
    chat_template: str | None = None,
) -> Path:
    """Write a random 2-layer llama. `noise` > 0 perturbs the `seed` weights (a related draft);
    `chat_template` goes into tokenizer.chat_template."""
    tokens, types = tiny_vocab(vocab)
    n_vocab, head_dim = len(tokens), N_EMBD // N_HEAD
    rng = np.random.default_rng(seed)
    noise_rng = np.random.default_rng(noise_seed)

    def weight(*shape: int, scale: float = 0.05) -> np.ndarray:
        w = rng.standard_normal(shape) * scale
        if noise:
            w = w + noise_rng.standard_normal(shape) * scale * noise
        return w.astype(np.float32)

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_context_length(n_ctx)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    add_vocab(w, tokens, types)
    if chat_template is not None:
        w.add_chat_template(chat_template)
    w.add_tensor("token_embd.weight", weight(n_vocab, N_EMBD, scale=1.0))
    w.add_tensor("output_norm.weight", np.ones(N_EMBD, np.float32))
    w.add_tensor("output.weight", weight(n_vocab, N_EMBD, scale=out_scale / np.sqrt(N_EMBD)))
    for i in range(N_LAYER):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(N_EMBD, np.float32))
        w.add_tensor(p + "attn_q.weight", weight(N_EMBD, N_EMBD))
        w.add_tensor(p + "attn_k.weight", weight(N_EMBD, N_EMBD))
        w.add_tensor(p + "attn_v.weight", weight(N_EMBD, N_EMBD))
        w.add_tensor(p + "attn_output.weight", weight(N_EMBD, N_EMBD))
        w.add_tensor(p + "ffn_norm.weight", np.ones(N_EMBD, np.float32))
        w.add_tensor(p + "ffn_gate.weight", weight(N_FF, N_EMBD))
        w.add_tensor(p + "ffn_up.weight", weight(N_FF, N_EMBD))
        w.add_tensor(p + "ffn_down.weight", weight(N_EMBD, N_FF))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def truncate_file(src: Path, dst: Path, keep: float = 0.5) -> Path:
    """A copy of `src` cut to `keep` of its size (a download that stopped half way)."""
    data = src.read_bytes()
    dst.write_bytes(data[: int(len(data) * keep)])
    return dst


def write_fusion_gguf(path: Path, *, n_embd: int = 64, arch: str = "qwen35", extra_name: str | None = None) -> Path:
    """A metadata-and-shapes GGUF with one MTP (NextN) block's fusion tensors; not meant to be loaded.

    `extra_name` adds one more eh_proj tensor under that (possibly hostile) name.
    """
    rng = np.random.default_rng(0)
    w = gguf.GGUFWriter(str(path), arch)
    w.add_embedding_length(n_embd)
    w.add_block_count(2)
    w.add_uint32(f"{arch}.nextn_predict_layers", 1)
    w.add_token_list([f"t{i}" for i in range(300)])  # an array of strings the reader must skip
    w.add_tensor("token_embd.weight", rng.standard_normal((300, n_embd)).astype(np.float32))
    w.add_tensor("blk.0.attn_q.weight", rng.standard_normal((n_embd, n_embd)).astype(np.float32))
    w.add_tensor("blk.1.nextn.eh_proj.weight", rng.standard_normal((n_embd, 2 * n_embd)).astype(np.float32))
    w.add_tensor("blk.1.nextn.enorm.weight", np.ones(n_embd, np.float32))
    w.add_tensor("blk.1.nextn.hnorm.weight", np.ones(n_embd, np.float32))
    if extra_name is not None:
        w.add_tensor(extra_name, np.zeros((n_embd, 2 * n_embd), np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
