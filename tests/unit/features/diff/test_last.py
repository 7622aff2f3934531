"""features/diff/last.py: the kept verdict is read back as untrusted input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specview.features.diff.last import MAX_BYTES, load, save
from specview.features.diff.model import EXACT, Cause, DiffResult


def test_a_verdict_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "state" / "last.json"
    save(DiffResult("a", "b", 48, None, cause=Cause(EXACT)), "m.gguf", path)
    last = load(path)
    assert last is not None and last.kind == EXACT and last.tokens == 48 and last.model == "m.gguf"
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_no_cause_keeps_nothing(tmp_path: Path) -> None:
    save(DiffResult("a", "b", 3, None), "m", tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("content", [
    b"not json", b"[1, 2]", b'{"kind": "lossless", "model": "m", "tokens": 1}',
    b'{"kind": "exact", "model": 3, "tokens": 1}', b'{"kind": "exact", "model": "m", "tokens": -1}',
    b'{"kind": "numerics", "model": "m", "tokens": 1, "logit_shift": NaN}',
    b'{"kind": "exact", "model": "m", "tokens": 1, "pad": "' + b"x" * MAX_BYTES + b'"}',
])
def test_anything_else_is_no_verdict(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "last.json"
    path.write_bytes(content)
    assert load(path) is None


def test_a_hostile_model_name_is_made_safe(tmp_path: Path) -> None:
    path = tmp_path / "last.json"
    path.write_text(json.dumps({"kind": "exact", "model": "\x1b]0;pwned\x07m\u202e" + "y" * 500, "tokens": 2}))
    last = load(path)
    assert last is not None and "\x1b" not in last.model and "\u202e" not in last.model and len(last.model) < 100


def test_a_link_or_a_fifo_is_not_read(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert load(fifo) is None  # never blocks on a FIFO
    assert load(tmp_path / "missing.json") is None
