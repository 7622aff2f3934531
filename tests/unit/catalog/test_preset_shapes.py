"""Presets beyond one fixed chain (issue 21, item 3): a block, variable depth, a tree, decay with context;
what the simulator makes of them, and bad preset fields refused by name."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest

from specview.backends.replay import ReplayBackend
from specview.backends.sim.backend import SimBackend
from specview.catalog.presets import get_preset, load_preset_file, load_presets
from specview.kernel.errors import PresetError
from specview.kernel.metrics import Metrics
from specview.kernel.session import Session
from specview.texts.catalog import Phrase
from tests.support.recordings import record_sim

NOWHERE = Path("/nonexistent")


def run(preset_id: str, rounds: int, seed: int = 3) -> Metrics:
    metrics = Metrics()
    for item in SimBackend(get_preset(preset_id, NOWHERE), seed=seed, speed=0, max_rounds=rounds).rounds(
            threading.Event()):
        metrics.add(item)
    return metrics


def test_acceptance_falls_with_context_bucket_by_bucket_as_the_preset_says() -> None:
    preset = get_preset("qwen3.5-mtp-long", NOWHERE)
    snap = run("qwen3.5-mtp-long", 20_000).snapshot()
    assert snap.context is not None
    checked = 0
    for bucket in snap.context.buckets:
        if bucket.verified < 1000:
            continue
        mid = (bucket.start + bucket.end) / 2
        assert bucket.alpha == pytest.approx(preset.acceptance_at(0.0, context=mid)[0], abs=0.04), bucket
        checked += 1
    assert checked >= 8
    decay = snap.context.decay()
    assert decay is not None and decay.detected and decay.drop > 0.3


def test_a_recording_with_a_known_decay_replays_to_the_same_buckets(tmp_path: Path) -> None:
    file = tmp_path / "long.jsonl"
    made = record_sim(file, 12_000, preset="qwen3.5-mtp-long")
    by_context = made["acceptance_by_context"]
    assert isinstance(by_context, dict) and by_context["decay"]["detected"]
    session = Session(ReplayBackend(file, speed=0))
    for _ in session.run_headless():
        pass
    replayed = session.metrics.snapshot().context
    assert replayed is not None
    assert [(b.start, b.rounds, b.drafted, b.verified, b.accepted) for b in replayed.buckets] == [
        (b["from"], b["rounds"], b["drafted"], b["verified"], b["accepted"]) for b in by_context["buckets"]]
    decay = replayed.decay()
    assert decay is not None and decay.detected


def test_replay_json_says_the_decay_from_the_recorded_rounds(tmp_path: Path) -> None:
    file = tmp_path / "long.jsonl"
    record_sim(file, 8000, preset="qwen3.5-mtp-long")
    out = subprocess.run([sys.executable, "-m", "specview", "replay", str(file), "--json"], capture_output=True,
                         text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)["acceptance_by_context"]
    assert stats["position"] == "prompt+output" and stats["prompt_tokens"] == 0
    assert stats["decay"]["detected"] and stats["decay"]["first"] > stats["decay"]["last"] + 0.2


def test_variable_depth_presets_draft_a_different_gamma_each_round() -> None:
    for preset_id in ("dspark", "suffix"):
        preset = get_preset(preset_id, NOWHERE)
        snap = run(preset_id, 5000).snapshot()
        gammas = dict(snap.gamma_counts)
        assert len(gammas) >= 6, preset_id
        assert max(gammas) <= preset.gamma
        assert snap.drafted / snap.rounds == pytest.approx(preset.mean_drafted(), rel=0.05)
    assert 0 in dict(run("suffix", 2000).snapshot().gamma_counts)  # no match: a plain round


def test_dflash_acceptance_decays_along_the_block_and_the_tree_raises_each_depth() -> None:
    dflash = get_preset("dflash", NOWHERE)
    along = dflash.acceptance_at(0.0, 7)
    assert along == sorted(along, reverse=True) and along[0] - along[-1] > 0.5
    assert dflash.shape.block == 8 and dflash.gamma <= dflash.shape.block
    tree = get_preset("eagle3-tree", NOWHERE)
    branch = tree.chain_acceptance(0.0)[0]
    assert tree.acceptance_at(0.0)[0] == pytest.approx(1 - (1 - branch) ** 2)
    assert tree.declared_tau() == pytest.approx(6.13, abs=0.01)


BASE = """
id = "mine"
method = "dflash"
gamma = 3
temperature = 0.0
c = 0.1
target_ms = 10
[acceptance]
t0 = [0.8, 0.6, 0.4]
[[sources]]
title = "my own"
tag = "independent"
"""


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("block = 0\n", "'block' is 0"),
        ("block = 2\n", "'block'"),  # γ 3 verifies more than a block of 2 holds
        ("block = 9223372036854775807\n", "'block'"),
        ('block = "eight"\n', "'block'"),
        ("[depth]\nweights = [0.5, 0.5]\n", "'depth.weights' must be a list of γ + 1 = 4"),
        ("[depth]\nweights = [0.5, 0.5, 0.5, 0.5]\n", "sums to 2"),
        ("[depth]\nweights = [1.5, -0.5, 0, 0]\n", "'depth.weights[0]' is 1.5"),
        ("[depth]\nweights = [nan, 0, 0, 1]\n", "'depth.weights[0]'"),
        ("[tree]\nbranches = 0\n", "'tree.branches' is 0"),
        ("[acceptance.context]\nhalf_life = 0\n", "'acceptance.context.half_life' is 0"),
        ("[acceptance.context]\nhalf_life = inf\n", "'acceptance.context.half_life'"),
        ("[acceptance.context]\nhalf_life = 100\nfloor = 1.5\n", "'acceptance.context.floor' is 1.5"),
        ("depth = 3\n", "'depth' must be a table"),
    ],
)
def test_bad_shape_fields_are_one_error_naming_the_field(tmp_path: Path, extra: str, needle: str) -> None:
    path = tmp_path / "mine.toml"
    # a top-level key goes first, a table before the sources
    text = BASE.replace("[[sources]]", extra + "[[sources]]") if extra.startswith("[") else extra + BASE
    path.write_text(text, encoding="utf-8")
    tracemalloc.start()
    try:
        with pytest.raises(PresetError) as caught:
            load_preset_file(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    assert str(path) in message and needle in message and "\n" not in message
    assert peak < 2 * 2**20  # nothing allocated from the bad value (a block of 2^63 builds no list)


def test_acceptance_above_one_in_a_new_method_is_refused_and_the_others_still_load(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text(BASE.replace("0.8, 0.6, 0.4", "1.2, 0.6, 0.4"), encoding="utf-8")
    problems: list[Phrase] = []
    presets = load_presets(tmp_path, problems)
    assert "mine" not in presets and "dflash" in presets
    assert len(problems) == 1 and "acceptance.t0" in str(problems[0]) and "1.2" in str(problems[0])


def test_a_user_shape_without_provenance_makes_the_outputs_assumed(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text("block = 4\n" + BASE.replace("[[sources]]", "[depth]\nweights = [0.1, 0.2, 0.3, 0.4]\n"
                                                                 "[[sources]]"), encoding="utf-8")
    preset = load_preset_file(path)
    assert preset.field_source("depth").kind == "assumed"
    assert preset.provenance_json()["fields"]["depth"]["kind"] == "assumed"
    assert preset.provenance_json()["outputs"]["tau"] == "assumed"
