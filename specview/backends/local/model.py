"""One GGUF model and its context, driven through llama.cpp's low-level batch API.

The weights come from the pool (pool.py): runners of one file share one llama_model, each
with its own context and cache.

The cache always holds `n_past` tokens of sequence 0. `eval` appends tokens and returns
float32 logits only for the rows asked for (never for the whole context); `truncate`
rolls the cache back with llama_memory_seq_rm. Every call must come from one thread.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from specview.backends.local.lib import llama_lib
from specview.backends.local.log import LOG
from specview.backends.local.pool import POOL
from specview.backends.local.threads import Threadpool
from specview.backends.reason import role_word
from specview.boundary.safe_files import open_regular
from specview.kernel.errors import BackendError
from specview.kernel.os_reason import os_reason

Logits = npt.NDArray[np.float32]
GGUF_MAGIC = b"GGUF"
MAX_VIEWS = 64  # logits views kept per context: one per batch shape, a few shapes a run


def check_gguf_file(path: Path, role: str) -> None:
    """Fail early, with the user's own words, on a missing or non-GGUF file."""
    if not path.exists():
        raise BackendError("backenderr.model.not_found", role=role_word(role), path=str(path))
    if not path.is_file():
        raise BackendError("backenderr.model.not_a_file", role=role_word(role), path=str(path))
    try:
        with open_regular(path) as fh:  # a FIFO put there since the check is refused, not waited on
            magic = fh.read(4)
    except OSError as exc:
        raise BackendError("backenderr.pool.unreadable", role=role_word(role), path=str(path),
                           reason=os_reason(exc)) from None
    if magic != GGUF_MAGIC:
        raise BackendError("backenderr.model.not_gguf", role=role_word(role), path=str(path), magic=repr(magic))


class ModelRunner:
    """A loaded model: tokenizer, pieces, batched decode with selected logits rows, rollback."""

    def __init__(self, path: Path, *, role: str, n_gpu_layers: int, n_threads: int | None = None,
                 repack: bool | None = None) -> None:
        self.lib = lib = llama_lib()
        check_gguf_file(path, role)
        self.role, self.name, self.path = role, path.name, path
        self.n_gpu_layers = n_gpu_layers
        self.n_threads = n_threads or os.cpu_count() or 1
        self._loaded = POOL.acquire(path, role, n_gpu_layers, repack)  # shared with other runners of this file
        self.model = self._loaded.model
        self.repack = self._loaded.repack  # with llama.cpp's repacked weights or not, and why (cpu_features.py)
        self.load_lines = self._loaded.load_lines
        self.ctx: Any = None
        self.batch: Any = None
        self.threadpool: Threadpool | None = None
        self.vocab = lib.llama_model_get_vocab(self.model)
        self.n_vocab = int(lib.llama_vocab_n_tokens(self.vocab))
        self.n_ctx_train = int(lib.llama_model_n_ctx_train(self.model))
        model = self.model
        self.recurrent = bool(lib.llama_model_is_recurrent(model) or lib.llama_model_is_hybrid(model))
        self.n_ctx = 0
        self.n_batch = 0
        self.n_past = 0
        self.decode_s = 0.0
        self._pieces: dict[int, bytes] = {}
        self._eog: dict[int, bool] = {}
        self._views: dict[tuple[int, int], Logits] = {}  # (address, rows) → a view of llama.cpp's logits
        self._piece_buf = ctypes.create_string_buffer(64)
        self._closed = threading.Event()

    # context ---------------------------------------------------------------
    def open_context(self, n_ctx: int, n_batch: int = 512, n_seq: int = 1) -> None:
        """Create the context (size known once the prompt is tokenized) and its batch.

        `n_seq` > 1 (a draft tree's leaves, tree_verify.py) gives one unified cache that the
        sequences share, so copying the committed prefix to another sequence copies no data."""
        lib = self.lib
        self._views.clear()
        params = lib.llama_context_default_params()
        self.n_ctx = min(n_ctx, self.n_ctx_train) if self.n_ctx_train > 0 else n_ctx
        self.n_batch = min(n_batch, self.n_ctx)
        params.n_ctx = self.n_ctx
        params.n_batch = params.n_ubatch = self.n_batch
        params.n_seq_max = n_seq
        params.kv_unified = n_seq > 1
        params.n_threads = params.n_threads_batch = self.n_threads
        params.no_perf = True
        with self._loaded.lock:
            self.ctx = lib.llama_init_from_model(self.model, params)
        if not self.ctx:
            raise BackendError("backenderr.model.no_context", role=role_word(self.role), why=LOG.last_error())
        self.batch = lib.llama_batch_init(self.n_batch, 0, n_seq)
        if os.environ.get("SPECVIEW_LLAMA_THREADPOOL", "1") != "0":
            self.threadpool = Threadpool(lib, self.ctx, self.n_threads)

    def reset(self) -> None:
        """Empty the cache."""
        self.lib.llama_memory_clear(self.lib.llama_get_memory(self.ctx), True)
        self.n_past = 0

    def eval(self, tokens: Sequence[int], rows: int = 1) -> Logits:
        """Append `tokens` (at most n_batch) and return the logits of the last `rows` of them.

        The array is a view of llama.cpp's output buffer (copying 262k-wide rows every round
        costs more than the verdict): it is valid only until the next `eval` on this model.
        """
        n = len(tokens)
        if not 0 < n <= self.n_batch or not 0 <= rows <= n:
            raise ValueError(f"bad batch: {n} tokens, {rows} rows (capacity {self.n_batch})")
        if self.n_past + n > self.n_ctx:
            raise BackendError("backenderr.model.context_full", role=role_word(self.role), n_ctx=self.n_ctx)
        b = self.batch
        first_row = n - rows
        n_past = self.n_past
        # each field read off the struct makes a new pointer object: once per batch, not per token
        token, pos, n_seq_id, seq_id, logits = b.token, b.pos, b.n_seq_id, b.seq_id, b.logits
        for i, tok in enumerate(tokens):
            token[i] = tok
            pos[i] = n_past + i
            n_seq_id[i] = 1
            seq_id[i][0] = 0
            logits[i] = i >= first_row
        b.n_tokens = n
        with self._loaded.lock:  # another context of this model may decode on another thread
            t0 = time.perf_counter()
            rc = self.lib.llama_decode(self.ctx, b)
            self.decode_s += time.perf_counter() - t0
        if rc != 0:
            self.truncate(self.n_past)  # a failed decode may leave part of the batch behind
            why = LOG.last_error()
            raise BackendError("backenderr.model.decode_failed", role=role_word(self.role), rc=rc, why=why)
        self.n_past += n
        if rows == 0:
            return np.empty((0, self.n_vocab), dtype=np.float32)
        return self._logits(rows)

    def decode_batch(self, n: int) -> Logits:
        """Decode the `n` tokens the caller put in `batch` (positions and sequences its own, every
        row asking for logits); the rows, a view as in `eval`. `n_past` is the caller's to move."""
        if not 0 < n <= self.n_batch:
            raise ValueError(f"bad batch: {n} tokens (capacity {self.n_batch})")
        t0 = time.perf_counter()
        rc = self.lib.llama_decode(self.ctx, self.batch)
        self.decode_s += time.perf_counter() - t0
        if rc != 0:
            self.lib.llama_memory_seq_keep(self.lib.llama_get_memory(self.ctx), 0)
            self.truncate(self.n_past)
            raise BackendError("backenderr.model.decode_failed", role=role_word(self.role), rc=rc,
                               why=LOG.last_error())
        return self._logits(n)

    def _logits(self, rows: int) -> Logits:
        """The first `rows` rows of the last decode's logits, as a view.

        llama_get_logits is called every time (it synchronises a GPU backend, and the buffer
        moves when a batch needs more outputs than it held), but the view over an address is
        made once: a batch that just wrote `rows` rows there makes the view valid again."""
        ptr = self.lib.llama_get_logits(self.ctx)
        key = (ctypes.addressof(ptr.contents), rows)
        view = self._views.get(key)
        if view is None:
            if len(self._views) >= MAX_VIEWS:  # a buffer that moved leaves old addresses behind
                self._views.clear()
            view = self._views[key] = np.ctypeslib.as_array(ptr, shape=(rows, self.n_vocab))
        return view

    def prefill(self, tokens: Sequence[int], stop: threading.Event | None = None) -> Logits | None:
        """Evaluate a long input in n_batch chunks; the last token's logits, or None if stopped."""
        out: Logits | None = None
        for start in range(0, len(tokens), self.n_batch):
            if stop is not None and stop.is_set():
                return None
            chunk = tokens[start : start + self.n_batch]
            last = start + self.n_batch >= len(tokens)
            out = self.eval(chunk, rows=1 if last else 0)
        return out

    def truncate(self, n: int) -> None:
        """Keep the first `n` cached tokens and drop the rest."""
        mem = self.lib.llama_get_memory(self.ctx)
        if not self.lib.llama_memory_seq_rm(mem, 0, n, -1):
            raise BackendError("backenderr.model.no_rollback", role=role_word(self.role))
        self.n_past = n

    # vocabulary ------------------------------------------------------------
    def tokenize(self, text: str) -> list[int]:
        """Token ids of `text` (BOS added when the model asks for it; special tokens parsed)."""
        raw = text.encode("utf-8")
        cap = len(raw) + 16
        for _ in range(2):
            buf = (ctypes.c_int32 * cap)()
            n = self.lib.llama_tokenize(self.vocab, raw, len(raw), buf, cap, True, True)
            if n >= 0:
                return list(buf[:n])
            cap = -n
        raise BackendError("backenderr.model.no_tokens", role=role_word(self.role))

    def piece(self, token: int) -> bytes:
        """The exact bytes of one token (may be part of a UTF-8 character; specials render empty); cached."""
        cached = self._pieces.get(token)
        if cached is not None:
            return cached
        buf = self._piece_buf
        n = self.lib.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, False)
        if n < 0:  # too small: llama.cpp says how much it needs
            buf = self._piece_buf = ctypes.create_string_buffer(-n + 16)
            n = self.lib.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, False)
        data = buf.raw[: max(n, 0)]
        self._pieces[token] = data
        return data

    def is_eog(self, token: int) -> bool:
        """Whether `token` ends a generation; cached (asked for every emitted and drafted token)."""
        eog = self._eog.get(token)
        if eog is None:
            eog = self._eog[token] = bool(self.lib.llama_vocab_is_eog(self.vocab, token))
        return eog

    def token_text(self, token: int) -> bytes:
        """The vocabulary entry as stored (e.g. '▁the'), for the compatibility check."""
        return bytes(self.lib.llama_vocab_get_text(self.vocab, token) or b"")

    def close(self) -> None:
        """Free the context, batch and model (idempotent)."""
        if self._closed.is_set():
            return
        self._closed.set()
        lib = self.lib
        self._views.clear()
        if self.batch is not None:
            lib.llama_batch_free(self.batch)
            self.batch = None
        if self.threadpool is not None:
            self.threadpool.close()
            self.threadpool = None
        if self.ctx:
            with self._loaded.lock:
                lib.llama_free(self.ctx)
            self.ctx = None
        if self.model:
            POOL.release(self._loaded)
            self.model = None
