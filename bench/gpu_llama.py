"""specview's local loop on a CUDA build of llama.cpp (issue 34 item 6): v(k), tokens/s, losslessness.

Run by bench/gpu_llama.sh on a GPU machine after it built libllama and llama-server for CUDA. That
machine reaches no network and takes at most 64 MiB of files along, so Gemma 3 270M (253 MB) cannot
travel: the models are written here with llama.cpp's own gguf-py, random weights in F16 at two
shapes — Gemma 3 270M's widths (640 wide, 18 layers, a 262,144-token vocabulary) and a 1.1B-parameter
one (2048 wide, 16 layers) — each with a 2-layer draft that shares its embeddings and output layer
(the kind of draft that is accepted often and costs little). Random weights give text that means
nothing, but the same forward passes, batch shapes and costs, and greedy losslessness is just as
checkable. Everything below is measured on that machine:

- v(k) = t(k-token forward) / t(1-token forward), k = 1…16, at 64 tokens of context (median of 3),
  the way a live run calibrates (`specview/features/learn/local_model.py: forward_costs_here`);
- `specview bench` with --no-spec, --draft ngram and --draft D (llama.cpp in its engine process);
- llama-server on the same GPU, plain and with the same draft (`-md`), on the same prompt;
- `specview diff` (speculative greedy against the target's own greedy on the same batches).

    python3 bench/gpu_llama.py --server /path/llama-server --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROMPT = ("The lighthouse keeper climbed the stairs every evening at dusk. He lit the great lamp, wound the "
          "clockwork and watched the ships pass the rocks. " * 3)
SHAPES = {"gemma3-270m-shaped": dict(n_embd=640, n_layer=18, n_head=5, n_ff=2048, n_vocab=262_144),
          "1.1b-shaped": dict(n_embd=2048, n_layer=16, n_head=16, n_ff=5632, n_vocab=32_000)}
KS = list(range(1, 17))


def write_model(path: Path, *, n_embd: int, n_layer: int, n_head: int, n_ff: int, n_vocab: int,
                layers: int | None = None) -> Path:
    """A random llama in F16; tensors seeded by name, so a draft with fewer layers shares the
    target's embeddings, output layer and first layers."""
    import gguf
    import numpy as np

    def weight(name: str, *shape: int, scale: float = 0.02) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")
        return (np.random.default_rng(seed).standard_normal(shape, dtype=np.float32) * scale).astype(np.float16)

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_context_length(4096)
    w.add_embedding_length(n_embd)
    w.add_block_count(layers or n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + ["▁"]
    tokens += [chr(c) for c in range(0x21, 0x7F)]
    tokens += [f"▁w{i}" for i in range(n_vocab - len(tokens))]
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_types([2, 3, 3] + [6] * 256 + [1] * (len(tokens) - 259))
    w.add_token_scores([0.0] * len(tokens))
    w.add_unk_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_tensor("token_embd.weight", weight("token_embd", n_vocab, n_embd, scale=1.0))
    w.add_tensor("output_norm.weight", np.ones(n_embd, np.float32))
    w.add_tensor("output.weight", weight("output", n_vocab, n_embd, scale=0.3 / np.sqrt(n_embd)))
    for i in range(layers or n_layer):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(n_embd, np.float32))
        w.add_tensor(p + "ffn_norm.weight", np.ones(n_embd, np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(p + name + ".weight", weight(p + name, n_embd, n_embd))
        w.add_tensor(p + "ffn_gate.weight", weight(p + "ffn_gate", n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", weight(p + "ffn_up", n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", weight(p + "ffn_down", n_embd, n_ff))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def specview(*args: str, timeout: float = 300) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True, timeout=timeout)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"error": (proc.stderr or proc.stdout)[-800:], "rc": proc.returncode}


def bench(target: Path, draft: str | None, max_tokens: int) -> dict[str, Any]:
    how = ["--no-spec"] if draft is None else ["--draft", draft, "--gamma", "4"]
    got = specview("bench", "--target", str(target), *how, "--prompt", PROMPT, "--max-tokens", str(max_tokens),
                   "--json")
    keep = ("tokens_per_second", "plain_tokens_per_second", "speedup", "acceptance_rate", "tau", "draft_cost",
            "verify_cost", "repack", "error", "rc")
    return {k: got.get(k) for k in keep if k in got}


def server_rate(server: str, target: Path, extra: list[str], port: int, n: int, logs: Path) -> dict[str, Any]:
    args = [server, "-m", str(target), "-ngl", "99", "-c", "4096", "--host", "127.0.0.1", "--port", str(port),
            "--no-webui", *extra]
    log = open(logs / f"llama-server-{port}.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        rates, drafted, accepted = [], 0, 0
        for _ in range(3):
            body = json.dumps({"prompt": PROMPT, "n_predict": n, "temperature": 0, "cache_prompt": False}).encode()
            req = urllib.request.Request(f"http://127.0.0.1:{port}/completion", body,
                                         {"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=120) as r:
                answer = json.loads(r.read())
            t = answer.get("timings", {})
            rates.append(t.get("predicted_per_second"))
            drafted += t.get("draft_n", 0) or 0
            accepted += t.get("draft_n_accepted", 0) or 0
        return {"tokens_per_second": statistics.median(r for r in rates if r), "runs": rates,
                "drafted": drafted, "accepted": accepted}
    except Exception as exc:  # noqa: BLE001 - a measurement that failed says why
        return {"error": repr(exc), "log": Path(log.name).read_text(errors="replace")[-800:]}
    finally:
        proc.terminate()
        proc.wait(20)
        log.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--models", type=Path, default=Path(tempfile.gettempdir()) / "specview-gpu-models")
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--tiny", action="store_true", help="a 2-layer 128-wide model only: a dry run on a CPU")
    args = ap.parse_args()
    shapes = ({"tiny": dict(n_embd=128, n_layer=4, n_head=2, n_ff=256, n_vocab=2000)} if args.tiny else SHAPES)
    args.models.mkdir(parents=True, exist_ok=True)
    from specview.backends.local.engine_process import engine_call

    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        gpu = "none"
    result: dict[str, Any] = {"gpu": gpu}
    for name, shape in shapes.items():
        began = time.monotonic()
        target = write_model(args.models / f"{name}.gguf", **shape)
        draft = write_model(args.models / f"{name}-draft.gguf", **shape, layers=2)
        found: dict[str, Any] = {"shape": shape, "write_s": round(time.monotonic() - began, 1)}
        try:  # in an engine process: a crash of llama.cpp is an error here, not the end of the script
            costs = "specview.features.learn.local_model:forward_costs_here"
            engine_call(costs, str(target), KS)  # warm: the first forwards of a context pay for its set-up
            seconds = engine_call(costs, str(target), KS)
            found["forward_ms"] = [round(s * 1e3, 4) for s in seconds]
            found["v"] = [round(s / seconds[0], 3) for s in seconds]
        except Exception as exc:  # noqa: BLE001 - a measurement that failed says why
            found["v"] = {"error": str(exc)}
        (args.out / "gpu.json").write_text(json.dumps({**result, name: found}, indent=1))
        found["specview"] = {label: bench(target, d, args.max_tokens)
                             for label, d in (("plain", None), ("ngram", "ngram"), ("draft", str(draft)))}
        found["llama_server"] = {
            "plain": server_rate(args.server, target, [], 18080, args.max_tokens, args.out),
            "draft": server_rate(args.server, target, ["-md", str(draft), "-ngld", "99", "--spec-draft-n-max", "4"],
                                 18081, args.max_tokens, args.out)}
        kept = ("identical", "compared", "cause", "error", "rc")
        found["diff"] = {label: {k: v for k, v in specview("diff", "--target", str(target), "--draft", d, "--gamma",
                                                            "4", "--prompt", PROMPT, "--max-tokens", "128",
                                                            "--json").items() if k in kept}
                         for label, d in (("ngram", "ngram"), ("draft", str(draft)))}
        result[name] = found
        (args.out / "gpu.json").write_text(json.dumps(result, indent=1))
        print(json.dumps({name: {k: found[k] for k in ("v", "specview", "llama_server", "diff")}}), flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
