"""Presets against the figures they cite (their methods' claims), and where every preset number comes from."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from specview.backends.sim.backend import SimBackend
from specview.catalog.claims import disagreement, load_claims, preset_value
from specview.catalog.presets import get_preset, load_preset_file, load_presets
from specview.catalog.provenance import FIELDS
from specview.kernel.errors import PresetError
from specview.kernel.metrics import Metrics

NOWHERE = Path("/nonexistent")
SHIPPED = sorted(load_presets(user_dir=NOWHERE))


@pytest.mark.parametrize("preset_id", SHIPPED)
def test_every_preset_agrees_with_the_claims_it_cites(preset_id: str) -> None:
    preset = get_preset(preset_id, user_dir=NOWHERE)
    claims = load_claims()
    cited = {cid for source in preset.provenance.values() for cid in source.claims}
    assert cited, f"{preset_id} cites no claim"
    problems = [why for cid in sorted(cited) if (why := disagreement(preset, claims[cid])) is not None]
    assert problems == []


@pytest.mark.parametrize("preset_id", SHIPPED)
def test_every_finding_is_still_a_disagreement(preset_id: str) -> None:
    preset = get_preset(preset_id, user_dir=NOWHERE)
    for finding in preset.findings:
        assert disagreement(preset, load_claims()[finding.claim]) is not None, (preset_id, finding.claim)
        assert finding.text


@pytest.mark.parametrize("preset_id", SHIPPED)
def test_every_field_of_a_shipped_preset_is_tagged(preset_id: str) -> None:
    preset = get_preset(preset_id, user_dir=NOWHERE)
    # the five fields always, and the shape's fields (depth, context) exactly where the preset has a shape
    assert set(preset.provenance) == set(FIELDS) | set(preset.shape.features)
    source_ids = {s.id for s in preset.sources}
    for name, source in preset.provenance.items():
        assert set(source.sources) <= source_ids, (preset_id, name)
        if source.kind == "derived":
            assert source.how, (preset_id, name)


def test_the_article_figures_are_kept_as_data() -> None:
    claims = load_claims()
    article = {cid: c for cid, c in claims.items() if c.origin == "article"}
    assert claims["glm52-accept-length"].value == 5.47 and claims["glm52-accept-length"].gamma == 7
    assert (claims["deepseek-v3-second-token"].low, claims["deepseek-v3-second-token"].high) == (0.85, 0.90)
    assert claims["deepseek-v3-speedup"].value == 1.8
    assert (claims["qwen36-acceptance-t1"].value, claims["qwen36-speedup-t1"].value,
            claims["qwen36-speedup-t01"].value, claims["qwen36-speedup-t01"].temperature) == (0.83, 2.2, 2.4, 0.1)
    assert claims["gemma4-speedup-max"].high == 3.0 and claims["gemma4-apple-silicon"].value == 2.2
    assert claims["vllm-load-slowdown"].quantity == "slowdown" and claims["vllm-load-slowdown"].high == 1.8
    assert len(article) >= 10
    assert all(c.text and c.text_zh and c.where for c in claims.values())


def test_the_fixed_presets() -> None:
    qwen = get_preset("qwen3.6-mtp", user_dir=NOWHERE)
    # a low-temperature row reproduces the article's 2.4× at T = 0.1; γ assumed, c derived
    assert qwen.speedup_at(0.1) == pytest.approx(2.4, abs=0.01)
    assert qwen.field_source("gamma").kind == "assumed" and qwen.field_source("c").kind == "derived"
    assert "accepted ÷ drafted" in qwen.notes
    eagle = get_preset("eagle3", user_dir=NOWHERE)
    # c derived from SGLang's measured 2.36×: the simulated tok/s is SGLang's 373, not ≈ 570
    assert 1000 / eagle.target_ms * eagle.speedup_at(0.0) == pytest.approx(373.25, rel=0.01)
    draft = get_preset("draft-model", user_dir=NOWHERE)
    assert [f.claim for f in draft.findings] == ["leviathan-t5-small-t1-speedup"]
    assert draft.tau_at(1.0) < 2.6  # even a free draft cannot reach the cited 2.6× from i.i.d. α 0.62
    medusa = get_preset("medusa", user_dir=NOWHERE)
    acceptance = medusa.acceptance_at(0.0)
    assert acceptance != sorted(acceptance, reverse=True) and "upper bound" in medusa.position_note.lower()
    assert preset_value(medusa, load_claims()["medusa-head-accuracy"]) == pytest.approx((0.56, 0.32, 0.20, 0.15),
                                                                                       abs=1e-3)


def test_ngram_is_a_mixture_that_reproduces_its_mean_length() -> None:
    preset = get_preset("ngram", user_dir=NOWHERE)
    assert preset.matched == 0.8 and preset.match_rate == pytest.approx(0.2045, abs=1e-3)
    metrics = Metrics()
    for item in SimBackend(preset, seed=4, speed=0, max_rounds=20_000).rounds(threading.Event()):
        metrics.add(item)
    snap = metrics.snapshot()
    counts = dict(snap.gamma_counts)
    assert set(counts) == {0, 10}  # a round drafts the whole run or nothing
    assert counts[10] / snap.rounds == pytest.approx(preset.match_rate, abs=0.01)
    assert snap.tau == pytest.approx(1.73, rel=0.03)
    assert snap.acceptance_rate == pytest.approx(0.8, abs=0.02)


def test_bench_json_says_where_each_number_comes_from() -> None:
    out = subprocess.run([sys.executable, "-m", "specview", "bench", "--preset", "glm-5.2-mtp", "--rounds", "300",
                          "--json"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    prov = json.loads(out.stdout)["provenance"]
    # GLM's c and forward time are assumptions: tok/s, c and the speedup say so
    assert prov["outputs"] == {"acceptance": "derived", "tau": "derived", "tokens_per_second": "assumed",
                               "draft_cost": "assumed", "speedup": "assumed"}
    assert prov["fields"]["acceptance"]["claims"] == ["glm52-accept-length"]
    assert prov["speedup_basis"] == "assumed" and prov["assumption"] == "verify ≈ 1 forward"


BASE = """
id = "mine"
method = "draft-model"
gamma = 2
temperature = 0.5
c = 0.1
target_ms = 10
[acceptance]
t1 = [0.7, 0.6]
[[sources]]
id = "me"
title = "my own measurement"
tag = "independent"
"""


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ('[provenance.c]\nkind = "guessed"\n', "kind"),
        ('[provenance.speed]\nkind = "assumed"\n', "unknown field"),
        ('[provenance.c]\nkind = "cited"\nsources = ["nobody"]\n', "nobody"),
        ('[provenance.c]\nkind = "cited"\nclaims = ["no-such-claim"]\n', "no-such-claim"),
        ('[provenance.c]\nkind = "derived"\nsources = ["me"]\n', "how"),
        ('[provenance.c]\nkind = "cited"\n', "sources or claims"),
        ('[[findings]]\nclaim = "nope"\ntext = "x"\n', "nope"),
        ('[acceptance.mixture]\nmatched = 0.8\n', "mean_length"),
        ('[[acceptance.rows]]\ntemperature = 0.1\nvalues = [0.9]\n', "differ in length"),
        ('[[acceptance.rows]]\ntemperature = 9\nvalues = [0.9, 0.8]\n', "temperature"),
    ],
)
def test_bad_provenance_and_acceptance_name_the_key(tmp_path: Path, extra: str, needle: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(BASE + extra, encoding="utf-8")
    with pytest.raises(PresetError, match=needle) as caught:
        load_preset_file(path)
    assert str(path) in str(caught.value)


def test_a_user_preset_without_provenance_is_all_assumed(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(BASE + '[[acceptance.rows]]\ntemperature = 0.0\nvalues = [0.9, 0.8]\n', encoding="utf-8")
    preset = load_preset_file(path)
    assert {preset.field_source(f).kind for f in FIELDS} == {"assumed"}
    assert preset.provenance_json()["outputs"]["tokens_per_second"] == "assumed"
    assert preset.acceptance_at(0.5) == pytest.approx([0.8, 0.7])  # halfway between the T = 0 and T = 1 rows
