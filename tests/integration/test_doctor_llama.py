"""`specview doctor` against real llama-servers (Gemma 3 270M): a plain one (speculation off, with
the flag that turns it on) and an n-gram one driven by doctor's own probes (on, n-gram, which γ,
the numbers side by side). Run as a user runs it: a child process, its JSON read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.gguf_factory import write_tiny_llama
from tests.support.limited_run import base_env, run_cli
from tests.support.llama_server import NGRAM_ARGS, llama_server, server_binary

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

TIME_LIMIT = 240.0  # a busy 2-core machine; each run takes seconds when all is well


def doctor(root: str, home: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    run = run_cli(["doctor", root, "--json", *args], base_env(home), timeout=TIME_LIMIT)
    assert not run.timed_out, run.err
    return run.returncode, json.loads(run.out) if run.out.strip() else {}, run.err


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (server,) = report["servers"]
    return {f["id"]: f for f in server["findings"]}


def test_a_plain_llama_server_is_off_with_the_flag_to_turn_it_on(tmp_path: Path) -> None:
    with llama_server() as server:
        code, report, err = doctor(server.root, tmp_path, "--window", "1", "--check")
        words = run_cli(["doctor", server.root, "--window", "1", "--lang", "zh"], base_env(tmp_path),
                        timeout=TIME_LIMIT)
    assert code == 0, err  # off is a warning, not a problem
    found = by_id(report)
    off = found["off"]
    assert off["severity"] == "warn" and off["confidence"]["level"] == "high"
    assert off["flag"].startswith("--spec-type ngram-simple --spec-draft-n-max 3")
    assert report["servers"][0]["engine"] == "llama-server" and report["servers"][0]["probes"] == 0
    assert words.returncode == 0 and "未开启推测解码" in words.out and "--spec-type" in words.out


def test_an_ngram_llama_server_is_on_with_which_gamma(tmp_path: Path) -> None:
    with llama_server(NGRAM_ARGS) as server:
        code, report, err = doctor(server.root, tmp_path, "--window", "1", "--probe", "3", "--check")
    assert code == 0, err
    found = by_id(report)
    on = found["on"]
    assert on["confidence"]["level"] == "high" and "ngram-simple" in report["servers"][0]["method"]
    evidence = {e["name"]: e for e in on["evidence"]}
    assert evidence["gamma"]["value"] == 4  # --spec-ngram-simple-size-m 4: four position series
    assert evidence["drafted_in_window"]["value"] > 0
    (gamma,) = [f for i, f in found.items() if i.startswith("gamma_")]
    positions = [e for e in gamma["evidence"] if e["name"].startswith("position_")]
    assert len(positions) == 4 and all(0.0 <= e["value"] <= 1.0 for e in positions)
    assert any(e["name"] == "c" and e["source"] == "assumed" for e in gamma["evidence"])
    pays = found["pays_unknown"]  # no baseline given: says so
    assert pays["confidence"]["reason"] == "no_baseline"
    (numbers,) = [f for i, f in found.items() if i.startswith("numbers")]
    names = {e["name"] for e in numbers["evidence"]}
    assert {"alpha", "yield", "tau", "draft_share"} <= names
    assert "request ends" in numbers["text"]
    assert report["servers"][0]["probes"] == 3 and "probe_failed" not in found


def test_off_measures_the_speedup_against_a_plain_server_of_the_same_model(tmp_path: Path) -> None:
    with llama_server(NGRAM_ARGS) as on, llama_server() as off:
        code, report, err = doctor(on.root, tmp_path, "--window", "1", "--off", off.root)
        refused = run_cli(["doctor", off.root, "--off", on.root, "--window", "1"], base_env(tmp_path),
                          timeout=TIME_LIMIT)
    assert code == 0, err
    found = by_id(report)
    pays = found["pays_measured"]
    assert pays["confidence"]["reason"] == "baseline_off"
    evidence = {e["name"]: e for e in pays["evidence"]}
    on_tps, off_tps = evidence["tokens_per_s_on"]["value"], evidence["tokens_per_s_off"]["value"]
    assert on_tps > 0 and off_tps > 0 and "server timings" in evidence["speedup"]["source"]
    assert evidence["speedup"]["value"] == pytest.approx(on_tps / off_tps, rel=1e-3)
    assert off.root in evidence["tokens_per_s_off"]["source"] and evidence["c_implied"]["value"] is not None
    assert report["servers"][0]["probes"] == 4  # --off's default, on each side
    assert any(i.startswith("load") for i in found) and "context_unknown" in found
    assert refused.returncode == 2 and "speculates" in refused.err  # an --off server that drafts is no baseline


def test_a_draft_of_another_vocabulary_leaves_llama_server_plain_and_doctor_says_where_to_look(
        tmp_path: Path) -> None:
    """Seen with this build: `-md` with another vocabulary logs "the target and draft vocabs are not
    compatible" and serves without speculation; over HTTP it is a plain server, and doctor says so."""
    tiny = write_tiny_llama(tmp_path / "tiny.gguf")
    with llama_server(("-md", str(tiny), "--spec-type", "draft-simple")) as server:
        code, report, err = doctor(server.root, tmp_path, "--window", "1")
        log = server.log_tail(200)
    assert code == 0, err
    assert "the target and draft vocabs are not compatible" in log
    found = by_id(report)
    assert "off" in found and found["vocab_dropped"]["confidence"]["level"] == "low"
    said = found["vocab_dropped"]["text"]
    assert "-md" in said and "--target T.gguf --draft D.gguf" in said


def test_probes_in_flight_together_give_acceptance_and_speed_per_level_of_load(tmp_path: Path) -> None:
    with llama_server(NGRAM_ARGS, parallel=4) as server:  # four slots: doctor's four probes at once
        code, report, err = doctor(server.root, tmp_path, "--window", "2", "--probe", "8")
    assert code == 0, err
    (load,) = [f for i, f in by_id(report).items() if i.startswith("load")]
    levels = {e["name"].rsplit("_", 1)[1] for e in load["evidence"] if e["name"].startswith("alpha_at_")}
    assert len(levels) >= 2, load  # α and tok/s at two levels of running requests at least
    for e in load["evidence"]:
        assert "llamacpp:requests_processing = " in e["source"]
    # a level whose windows saw no request end has no α yet (llama-server counts drafts when a request ends)
    alphas = [e["value"] for e in load["evidence"] if e["name"].startswith("alpha_at_") and e["value"] is not None]
    assert alphas and all(0.0 <= a <= 1.0 for a in alphas)
    assert any(e["value"] for e in load["evidence"] if e["name"].startswith("tokens_per_s_at_"))
    assert load["confidence"]["reason"] == "load_levels"
