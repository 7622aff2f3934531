"""A tiny random-weight qwen35 GGUF with one MTP (NextN) block, for llama-server's `draft-mtp`.

No small MTP model can be downloaded here, so the tests write one with the `gguf` package
(facts in shared/research/mtp-gguf.md, read from llama.cpp's src/models/qwen35.cpp):
- `qwen35.nextn_predict_layers` = 1 and `block_count` = trunk + 1: the NextN block is the last
  one, an ordinary attention block plus `nextn.eh_proj`, `nextn.enorm`, `nextn.hnorm` and
  `nextn.shared_head_norm` (embedding and LM head fall back to the trunk's);
- the trunk keeps one recurrent (gated delta-net) block, since an all-attention qwen35 trunk
  aborts in the hybrid memory; that also makes the target a model whose cache cannot be rolled
  back by sequence removal, so llama-server restores a checkpoint and replays (the case
  specview's own loop cannot handle);
- ggml shapes are {ne0, ne1}; numpy arrays are written (ne1, ne0).
About 9 MB in F32.
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np

from tests.support.gguf_factory import add_vocab, tiny_vocab

ARCH = "qwen35"
N_EMBD = 256
N_HEAD = 2
HEAD_DIM = N_EMBD // N_HEAD
N_FF = 384
N_TRUNK = 2  # block 0 recurrent, block 1 full attention (full_attention_interval 2)
SSM_STATE = 64  # head_k_dim = head_v_dim
SSM_GROUPS = 2  # key heads
SSM_DT_RANK = 2  # value heads
SSM_INNER = SSM_STATE * SSM_DT_RANK
SSM_CONV = 4
ROPE_DIMS = 64
ROPE_SECTIONS = [11, 11, 10, 0]  # imrope: sections add up to ROPE_DIMS / 2


def write_tiny_mtp(path: Path, *, seed: int = 0, n_ctx: int = 2048, ascii_only: bool = False) -> Path:
    """Write the model. `ascii_only` drops the byte tokens ≥ 0x80, so no token can leave the
    output inside a UTF-8 character (by default they stay: the server then holds chunks back)."""
    tokens, types = tiny_vocab()
    if ascii_only:
        keep = [i for i, t in enumerate(tokens) if not (t.startswith("<0x") and int(t[3:5], 16) >= 0x80)]
        tokens, types = [tokens[i] for i in keep], [types[i] for i in keep]
    n_vocab = len(tokens)
    rng = np.random.default_rng(seed)

    def weight(*shape: int, scale: float = 0.05) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones(n, np.float32)

    w = gguf.GGUFWriter(str(path), ARCH)
    w.add_context_length(n_ctx)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_TRUNK + 1)
    w.add_uint32(f"{ARCH}.nextn_predict_layers", 1)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_key_length(HEAD_DIM)
    w.add_value_length(HEAD_DIM)
    w.add_rope_dimension_count(ROPE_DIMS)
    w.add_array(f"{ARCH}.rope.dimension_sections", ROPE_SECTIONS)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_uint32(f"{ARCH}.full_attention_interval", 2)
    w.add_uint32(f"{ARCH}.ssm.conv_kernel", SSM_CONV)
    w.add_uint32(f"{ARCH}.ssm.inner_size", SSM_INNER)
    w.add_uint32(f"{ARCH}.ssm.state_size", SSM_STATE)
    w.add_uint32(f"{ARCH}.ssm.time_step_rank", SSM_DT_RANK)
    w.add_uint32(f"{ARCH}.ssm.group_count", SSM_GROUPS)
    add_vocab(w, tokens, types)

    w.add_tensor("token_embd.weight", weight(n_vocab, N_EMBD, scale=1.0))
    w.add_tensor("output_norm.weight", ones(N_EMBD))
    w.add_tensor("output.weight", weight(n_vocab, N_EMBD, scale=6.0 / np.sqrt(N_EMBD)))
    key_dim, value_dim = SSM_STATE * SSM_GROUPS, SSM_STATE * SSM_DT_RANK
    for il in range(N_TRUNK + 1):
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", ones(N_EMBD))
        w.add_tensor(p + "post_attention_norm.weight", ones(N_EMBD))
        if il == 0:  # gated delta-net block
            w.add_tensor(p + "attn_qkv.weight", weight(2 * key_dim + value_dim, N_EMBD))
            w.add_tensor(p + "attn_gate.weight", weight(value_dim, N_EMBD))
            w.add_tensor(p + "ssm_conv1d.weight", weight(2 * key_dim + value_dim, SSM_CONV, scale=0.3))
            w.add_tensor(p + "ssm_dt.bias", weight(SSM_DT_RANK, scale=0.1))
            w.add_tensor(p + "ssm_a", -np.ones(SSM_DT_RANK, np.float32))
            w.add_tensor(p + "ssm_beta.weight", weight(SSM_DT_RANK, N_EMBD))
            w.add_tensor(p + "ssm_alpha.weight", weight(SSM_DT_RANK, N_EMBD))
            w.add_tensor(p + "ssm_norm.weight", ones(SSM_STATE))
            w.add_tensor(p + "ssm_out.weight", weight(N_EMBD, value_dim))
        else:  # full attention with a gated query (q and gate in one projection)
            w.add_tensor(p + "attn_q.weight", weight(2 * HEAD_DIM * N_HEAD, N_EMBD))
            w.add_tensor(p + "attn_k.weight", weight(HEAD_DIM * N_HEAD, N_EMBD))
            w.add_tensor(p + "attn_v.weight", weight(HEAD_DIM * N_HEAD, N_EMBD))
            w.add_tensor(p + "attn_output.weight", weight(N_EMBD, HEAD_DIM * N_HEAD))
            w.add_tensor(p + "attn_q_norm.weight", ones(HEAD_DIM))
            w.add_tensor(p + "attn_k_norm.weight", ones(HEAD_DIM))
        w.add_tensor(p + "ffn_gate.weight", weight(N_FF, N_EMBD))
        w.add_tensor(p + "ffn_up.weight", weight(N_FF, N_EMBD))
        w.add_tensor(p + "ffn_down.weight", weight(N_EMBD, N_FF))
        if il == N_TRUNK:  # the NextN block
            w.add_tensor(p + "nextn.eh_proj.weight", weight(N_EMBD, 2 * N_EMBD))
            w.add_tensor(p + "nextn.enorm.weight", ones(N_EMBD))
            w.add_tensor(p + "nextn.hnorm.weight", ones(N_EMBD))
            w.add_tensor(p + "nextn.shared_head_norm.weight", ones(N_EMBD))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
