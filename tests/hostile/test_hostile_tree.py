"""`--tree` given what it cannot do: a shape out of bounds or malformed, a draft without q, an engine
that does not run our loop. One clear line each, exit 2, before any model loads or request goes out."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.gguf_factory import write_tiny_llama
from tests.support.hostile_checks import one_error_line
from tests.support.limited_run import base_env, run_cli


@pytest.mark.parametrize(("shape", "says"), [
    ("0x3", "--tree 0x3: width and depth must be at least 1"),
    ("3x0", "--tree 3x0: width and depth must be at least 1"),
    ("99x99", "--tree 99x99: at most 8 wide and 16 deep, and width × depth at most 64"),
    ("8x16", "width × depth at most 64 (the whole tree is one target batch"),
    ("3", "--tree takes WIDTHxDEPTH, e.g. 3x4"),
    ("3x4x5", "--tree takes WIDTHxDEPTH"),
    ("-1x3", "--tree takes WIDTHxDEPTH"),
    ("99999999999999999999x2", "--tree takes WIDTHxDEPTH"),
    ("\x1b]0;PWNED\x07x3", "--tree takes WIDTHxDEPTH"),
])
def test_a_bad_shape_is_one_line(tmp_path: Path, shape: str, says: str) -> None:
    run = run_cli(["bench", f"--tree={shape}"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2 and says in line, line
    assert "PWNED" not in line


@pytest.mark.parametrize(("extra", "says"), [
    ([], "not on the simulator (it has no draft model to branch)"),
    (["--url", "http://127.0.0.1:9/v1"], "not on a remote server (it drafts and verifies its own way)"),
])
def test_tree_on_an_engine_without_our_loop(tmp_path: Path, extra: list[str], says: str) -> None:
    run = run_cli(["bench", "--tree", "3x4", *extra], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2 and says in line, line
    assert "--tree drafts a tree on the local llama.cpp loop" in line


@pytest.mark.parametrize(("extra", "says"), [
    (["--draft", "ngram"], "an n-gram draft has none (it proposes one continuation, q = 1): give --draft D.gguf"),
    ([], "an n-gram draft has none"),  # the local loop's default draft is prompt lookup
    (["--no-spec"], "--tree 3x4 drafts a tree and --no-spec drafts nothing"),
    (["--draft", "DRAFT", "--adaptive"], "--tree 3x4 has a fixed width and depth; drop --adaptive"),
])
def test_tree_needs_a_draft_models_q(tmp_path: Path, extra: list[str], says: str) -> None:
    target = write_tiny_llama(tmp_path / "t.gguf")
    extra = [str(target) if word == "DRAFT" else word for word in extra]
    run = run_cli(["bench", "--target", str(target), "--tree", "3x4", *extra], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2 and says in line, line
