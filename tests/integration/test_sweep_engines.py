"""`specview sweep` on real engines: local llama.cpp (γ), llama-server (γ not honoured), two
llama-servers with --parallel 4 (load: speculation on and off)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")

from specview.cli import main
from specview.features.sweep.model import LoadSweep
from tests.support.gguf_factory import write_tiny_llama
from tests.support.llama_server import RunningServer, llama_server, server_binary
from tests.support.mtp_gguf import write_tiny_mtp

MTP_ARGS = ("--spec-type", "draft-mtp", "--spec-draft-n-max", "3", "--spec-synth-rates", "0.9,0.7,0.5")
needs_server = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")


def test_gamma_sweep_on_local_llama(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = write_tiny_llama(tmp_path / "t.gguf")
    report = tmp_path / "gamma.md"
    prompt = "the cat sat on the mat and the dog ran to the cat " * 3
    assert main(["sweep", "gamma", "--target", str(target), "--draft", "ngram", "--gammas", "1-3",
                 "--max-tokens", "40", "--prompt", prompt, "--json", "--markdown", str(report)]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["rows"]
    assert [r["gamma"] for r in rows] == [0, 1, 2, 3]
    assert all(r["tokens"] == 40 for r in rows)
    assert rows[0]["tau"] == 1.0 and rows[0]["speedup"] == 1.0
    # a ★ only for a γ faster than every other beyond noise (each run's tok/s ± 2 standard errors)
    assert sum(r["best"] for r in rows) == (data["best_gamma"] is not None)
    assert all(r["tokens_per_second_spread"] is not None for r in rows)
    assert all(r["max_drafted"] <= r["gamma"] for r in rows[1:])
    for r in rows[1:]:  # theory from the measured α, c and verify-cost ratio, next to measurement
        assert r["verify_ratio"] is not None and r["verify_ratio"] > 0
        assert (r["predicted_speedup"] is None) == (data["alpha"] is None)
    assert not data["notes"], "local runs honour γ"
    text = report.read_text(encoding="utf-8")
    assert text.startswith("# γ sweep") and "★" in text


@needs_server
def test_gamma_sweep_says_when_the_server_ignores_gamma(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write_tiny_mtp(tmp_path / "mtp.gguf")
    with llama_server(MTP_ARGS, model=str(model)) as server:
        assert main(["sweep", "gamma", "--url", server.url, "--gammas", "1,2", "--max-tokens", "60", "--raw",
                     "--prompt", "the cat sat on"]) == 0
    out = capsys.readouterr().out
    assert "the server ignored the requested γ" in out
    assert "τ if γ were γ′" in out


@pytest.fixture(scope="module")
def on_off(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningServer, RunningServer]]:
    if server_binary() is None:
        pytest.skip("llama-server not built (make llama-server)")
    model = str(write_tiny_mtp(tmp_path_factory.mktemp("load") / "mtp.gguf"))
    with llama_server(MTP_ARGS, model=model, parallel=4) as on, llama_server((), model=model, parallel=4) as off:
        yield on, off


def test_load_sweep_with_parallel_slots(on_off: tuple[RunningServer, RunningServer], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    on, off = on_off
    report = tmp_path / "load.md"
    assert main(["sweep", "load", "--on", on.url, "--off", off.url, "--concurrency", "1,2,4", "--requests", "2",
                 "--max-tokens", "64", "--prompt", "the cat sat on", "--json", "--markdown", str(report)]) == 0
    data = json.loads(capsys.readouterr().out)
    sweep = LoadSweep.from_dict(data)
    assert [p.concurrency for p in sweep.points] == [1, 2, 4]
    assert all(p.on_tokens_per_second > 0 and p.off_tokens_per_second > 0 for p in sweep.points)
    assert all(p.requests == 2 * p.concurrency * 3 for p in sweep.points)  # 3 repeats by default
    assert all(len(p.on_samples) == len(p.off_samples) == 3 for p in sweep.points)
    assert all(p.on_drafted and p.off_drafted == 0 for p in sweep.points)  # the server's own counts, checked
    expected = next((p.concurrency for p in sweep.points if p.verdict.outcome.value != "above"), None)
    assert data["crossover"] == expected == sweep.crossover  # beyond noise only
    # more clients share the slots: each request gets less of the machine
    assert sweep.points[-1].off_per_request < sweep.points[0].off_per_request
    assert "| 4 |" in report.read_text(encoding="utf-8")
