"""A round as it happened: discarded drafts, the verifier's draws, and how rounds travel (JSON, pickle)."""

from __future__ import annotations

import json
import pickle
import threading
from pathlib import Path

import numpy as np
import pytest

from specview.backends.replay import ReplayBackend
from specview.backends.sim.backend import SimBackend
from specview.catalog.presets import get_preset
from specview.features.live.bench_command import bench_one
from specview.features.record.recording import read_recording
from specview.kernel.events import Calibration, Round, TokenEvent, TokenStatus
from specview.kernel.overlay import overlay
from specview.kernel.runspec import RunSpec
from specview.kernel.sampling import verify_greedy, verify_sampling
from specview.kernel.session import Session

NOWHERE = Path("/nonexistent")
D = TokenStatus.DISCARDED


def sim_rounds(preset: str, temperature: float, n: int = 3000) -> list[Round]:
    backend = SimBackend(get_preset(preset, user_dir=NOWHERE), temperature=temperature, seed=9, speed=0,
                         max_rounds=n)
    return [r for r in backend.rounds(threading.Event()) if isinstance(r, Round)]


def test_core_verifiers_report_the_drafts_after_the_first_rejection() -> None:
    p = np.array([[0.1, 0.9, 0.0], [0.2, 0.2, 0.6], [0.3, 0.3, 0.4], [1.0, 0.0, 0.0]])
    q = np.array([[0.9, 0.1, 0.0], [0.1, 0.8, 0.1], [0.5, 0.5, 0.0]])
    greedy = verify_greedy(p, [0, 1, 0], q)  # draft 0 ≠ argmax 1: rejected at once
    assert [d.status for d in greedy.decisions] == [TokenStatus.REJECTED, TokenStatus.CORRECTED]
    assert [(d.token_id, d.status, d.position, d.p, d.q) for d in greedy.discarded] == [(1, D, 1, None, 0.8),
                                                                                    (0, D, 2, None, 0.5)]
    sampled = verify_sampling(p, q, [0, 1, 0], np.random.default_rng(1))
    if sampled.accepted < 2:
        assert [d.position for d in sampled.discarded] == list(range(sampled.accepted + 1, 3))
        assert all(d.p is None and d.q is not None for d in sampled.discarded)
    all_pass = verify_greedy(p, [1, 2, 2], q)
    assert all_pass.discarded == ()


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_simulated_rounds_keep_their_discarded_drafts(temperature: float) -> None:
    rounds = sim_rounds("glm-5.2-mtp", temperature)
    seen = 0
    for rnd in rounds:
        rejected = [t for t in rnd.tokens if t.status is TokenStatus.REJECTED]
        if not rejected:
            assert rnd.discarded == ()
            continue
        k = rejected[0].position
        assert k is not None
        assert [t.position for t in rnd.discarded] == list(range(k + 1, rnd.drafted))
        assert all(t.status is D and t.p is None and t.q is not None and t.text for t in rnd.discarded)
        seen += len(rnd.discarded)
    assert seen > 100
    # the output is unchanged: discarded drafts are never emitted
    assert all(not t.emitted for r in rounds for t in r.discarded)


def test_sampling_verdicts_carry_the_draw_and_the_residual() -> None:
    preset = get_preset("qwen3.6-mtp", user_dir=NOWHERE)
    beta = preset.acceptance_at(1.0)
    drawn = residuals = 0
    for rnd in sim_rounds("qwen3.6-mtp", 1.0):
        for t in rnd.tokens:
            if t.status is TokenStatus.ACCEPTED:
                assert t.p is not None and t.q
                # no draw where p ≥ q (min(1, p/q) = 1); otherwise the draw that let it through
                assert (t.u is None and t.p >= t.q) or (t.u is not None and t.u < t.p / t.q)
            elif t.status is TokenStatus.REJECTED:
                assert t.p is not None and t.q and t.u is not None and t.u >= min(1.0, t.p / t.q)
                drawn += 1
            elif t.status is TokenStatus.CORRECTED:
                # the residual mass Σ max(0, p − q) is 1 − α at that position (the simulator's β is exact)
                assert t.position is not None and t.residual == pytest.approx(1 - beta[t.position], abs=1e-9)
                assert t.residual_p is not None and 0 < t.residual_p <= 1
                residuals += 1
    assert drawn > 100 and residuals > 100
    greedy = sim_rounds("qwen3.6-mtp", 0.0, 200)
    assert all(t.u is None and t.residual is None for r in greedy for t in r.tokens)
    # a draft with p < q passes only on a lucky draw, and says which
    p = np.array([[0.3, 0.7], [0.5, 0.5]])
    q = np.array([[0.6, 0.4]])
    verdicts = [verify_sampling(p, q, [0], np.random.default_rng(seed)).decisions[0] for seed in range(40)]
    lucky = [d for d in verdicts if d.status is TokenStatus.ACCEPTED]
    assert lucky and all(d.u is not None and d.u < 0.5 for d in lucky)


def test_rounds_survive_json_and_pickle_with_every_field() -> None:
    rnd = Round(4, 3, (TokenEvent(5, "a", TokenStatus.ACCEPTED, 0, 0.5, 0.6, u=0.2),
                       TokenEvent(6, "b", TokenStatus.REJECTED, 1, 0.1, 0.7, u=0.9),
                       TokenEvent(7, "c", TokenStatus.CORRECTED, 1, 0.4, 0.05, residual=0.3, residual_p=0.8)),
                0.001, 0.01, 12.5, (TokenEvent(8, "d", D, 2, None, 0.4),))
    assert Round.from_dict(json.loads(json.dumps(rnd.to_dict()))) == rnd
    assert pickle.loads(pickle.dumps(rnd)) == rnd
    assert rnd.text == "ac" and rnd.emitted == 2 and rnd.accepted == 1
    old = {k: v for k, v in rnd.to_dict().items() if k != "discarded"}  # a version 2 line
    assert Round.from_dict(old).discarded == ()


def test_recordings_keep_discarded_drafts_and_the_calibration(tmp_path: Path) -> None:
    file = tmp_path / "v3.jsonl"
    bench_one(RunSpec(preset="glm-5.2-mtp", seed=3, speed=0.0, max_rounds=300), 300, str(file))
    items = list(read_recording(file))
    assert isinstance(items[1], Calibration) and items[1].basis == "assumed"
    rounds = [i for i in items if isinstance(i, Round)]
    assert sum(len(r.discarded) for r in rounds) > 0
    replayed = [i for i in ReplayBackend(file, speed=0.0).rounds(threading.Event()) if isinstance(i, Round)]
    assert replayed == rounds


def test_a_version_2_recording_still_replays(tmp_path: Path) -> None:
    """What specview wrote before this version: no calibration line, no discarded drafts."""
    file = tmp_path / "v3.jsonl"
    stats = bench_one(RunSpec(preset="qwen3.6-mtp", seed=5, speed=0.0, max_rounds=200), 200, str(file)).stats
    lines = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
    lines[0]["version"] = 2
    old = [lines[0], *({k: v for k, v in line.items() if k != "discarded"} for line in lines[1:]
                       if line["type"] != "calibration")]
    v2 = tmp_path / "v2.jsonl"
    v2.write_text("".join(json.dumps(line) + "\n" for line in old), encoding="utf-8")
    session = Session(ReplayBackend(v2, speed=0.0))
    text = "".join(r.text for r in session.run_headless())
    snap = session.metrics.snapshot()
    assert text == stats["text"] and snap.rounds == 200
    assert all(r.discarded == () for r in read_recording(v2) if isinstance(r, Round))
    # a simulator run of an older version: its speedup rests on the same assumption, said so
    over = overlay(snap)
    assert over.speedup_basis == "assumed" and over.speedup_measured == pytest.approx(stats["speedup"], abs=1e-4)
