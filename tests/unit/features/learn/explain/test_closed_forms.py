"""The Learn screens' core numbers against closed forms and hand-computed values."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from specview.catalog.presets import get_preset
from specview.features.learn.explain.cache import PHASES, rollback_numbers, round_rollback
from specview.features.learn.explain.cases import COLUMNS, case_numbers
from specview.features.learn.explain.coupling import (
    FAR_Q,
    TARGET_P,
    coupling_numbers,
    draft_between,
    proof_terms,
    split,
)
from specview.features.learn.explain.fusion import VARIANTS, fusion_numbers, gguf_fusion_check
from specview.features.learn.explain.load import BATCHES, load_numbers
from specview.features.learn.explain.mask import mask_numbers
from specview.features.learn.explain.mtp import MEDUSA_HEAD_TOP1, mtp_numbers
from specview.features.learn.explain.rounds import label, round_drafts, round_numbers
from specview.features.learn.explain.speedup import Measured, speedup_numbers
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.theory import conditional_from_marginal, expected_tau, survival, tau_from_positions


def test_speedup_numbers_are_the_closed_forms_with_a_verify_ratio() -> None:
    n = speedup_numbers(0.7, 5, 0.1, 1.4)
    tau = (1 - 0.7**6) / 0.3
    assert n["expected_tau"] == pytest.approx(tau, abs=1e-12)
    assert n["speedup"] == pytest.approx(tau / (5 * 0.1 + 1.4), abs=1e-12)
    curve = [(1 - 0.7 ** (g + 1)) / 0.3 / (g * 0.1 + 1.4) for g in range(1, 17)]
    assert n["curve_speedup"] == pytest.approx(curve, abs=1e-12)
    best = max(range(1, 33), key=lambda g: (1 - 0.7 ** (g + 1)) / 0.3 / (g * 0.1 + 1.4))
    assert n["best_gamma"] == best
    assert n["break_even"]["lower_bound"] == pytest.approx(1.7 / 1.1)


def test_break_even_says_no_gamma_helps_when_alpha_is_below_c() -> None:
    n = speedup_numbers(0.05, 3, 0.1)
    assert n["break_even"]["alpha_beats_c"] is False and n["best_gamma"] == 0 and n["best_speedup"] == 1.0


def test_measured_taus_compare_theory_and_the_run() -> None:
    m = Measured(alpha=0.8, gamma=3, c=0.05, tau=2.9, per_position=(0.9, 0.8, 0.7))
    got = speedup_numbers(measured=m)["measured"]
    assert got["tau_iid"] == pytest.approx(expected_tau(0.8, 3))
    assert got["tau_positions"] == pytest.approx(1 + 0.9 + 0.72 + 0.504)
    assert got["tau_measured"] == 2.9


def test_split_alpha_is_one_minus_tv_for_every_closeness() -> None:
    for t in (0.0, 0.25, 0.5, 0.95, 1.0):
        q = draft_between(t)
        parts = split(TARGET_P, q)
        assert parts.alpha == pytest.approx(1 - parts.tv, abs=1e-12)
        assert [o + r for o, r in zip(parts.overlap, parts.residual, strict=True)] == pytest.approx(list(TARGET_P))
        assert [o + e for o, e in zip(parts.overlap, parts.excess, strict=True)] == pytest.approx(q)
    assert split(TARGET_P, draft_between(1.0)).alpha == pytest.approx(1.0)
    assert split(TARGET_P, FAR_Q).alpha == pytest.approx(sum(min(a, b) for a, b in zip(TARGET_P, FAR_Q, strict=True)))


@pytest.mark.parametrize("token", range(len(TARGET_P)))
def test_proof_terms_add_up_to_p(token: int) -> None:
    q = draft_between(0.3)
    terms = proof_terms(TARGET_P, q, token)
    assert terms["accept_term"] == pytest.approx(min(TARGET_P[token], q[token]))
    assert terms["reject_term"] == pytest.approx(max(0.0, TARGET_P[token] - q[token]))
    assert terms["total"] == pytest.approx(TARGET_P[token], abs=1e-12)


def test_coupling_numbers_sample_passes_and_the_wrong_sampler_fails() -> None:
    right = coupling_numbers(0.3)["sampling"]
    wrong = coupling_numbers(0.3, wrong=True)["sampling"]
    assert right["passes"] and right["p_value"] > 0.001 and sum(right["counts"]) == 100_000
    assert not wrong["passes"] and wrong["p_value"] < 1e-12


def test_mask_row_that_scores_draft_j_cannot_see_it() -> None:
    context, drafts = ["a", "b"], ["d1", "d2", "d3"]
    for row in range(len(context) + 1 + len(drafts)):
        n = mask_numbers(context, "p", drafts, row)
        assert n["mask"][row] == [1 if k <= row else 0 for k in range(6)]
        assert n["scored_is_masked"]
        if row >= 2:
            assert n["selected_scores"] == row - 1  # pending (row 2) scores draft 1
    n = mask_numbers(context, "p", drafts)
    assert n["selected"] == 2 and n["scored_column"] == 3 and n["mask"][2][3] == 0


def test_rollback_keeps_pending_and_accepted_and_removes_the_rest() -> None:
    n = rollback_numbers(10, ["x", "y"], "p", ["a", "b", "c", "d"], 1, "fix", "corrected")
    steps = {s["phase"]: s for s in n["steps"]}
    assert [s["phase"] for s in n["steps"]] == list(PHASES)
    assert steps["write"]["cache_len"] == 15
    assert steps["rollback"]["seq_rm"] == [12, -1] and steps["rollback"]["cache_len"] == 12
    states = [s["state"] for s in steps["verdict"]["slots"]]
    assert states == ["cached", "cached", "cached", "accepted", "rejected", "unverified", "unverified", "free"]
    commit = steps["commit"]["slots"]
    assert commit[4] == {"pos": 12, "label": "fix", "state": "next"}
    assert n["emitted"] == 2 and n["removed"] == 3
    everything = rollback_numbers(10, [], "p", ["a", "b"], 2, "bonus", "bonus")
    assert {s["phase"]: s for s in everything["steps"]}["rollback"]["seq_rm"] is None


def _round(statuses: list[TokenStatus]) -> Round:
    tokens = tuple(TokenEvent(i, f"t{i}", s, i, 0.5, 0.4) for i, s in enumerate(statuses))
    return Round(0, 3, tokens, None, None, 0.0)


def test_round_numbers_emitted_is_accepted_plus_one() -> None:
    rnd = _round([TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED])
    n = round_numbers(rnd)
    assert n["accepted"] == 1 and n["emitted"] == 2 == n["accepted"] + 1
    assert [d["verdict"] for d in n["drafts"]] == ["accepted", "rejected"]
    assert n["drafts"][0]["keep"] == 1.0 and n["final"]["status"] == "corrected"
    assert round_rollback(["a", "b", "c"], rnd)["accepted"] == 1


def test_labels_are_sanitised() -> None:
    assert label("\x1b[31mred") == "␛[31mred" and label(" a\n") == "␣a⏎" and label("") == "∅"
    rnd = Round(0, 1, (TokenEvent(1, "\x07x", TokenStatus.ACCEPTED, 0), TokenEvent(2, "y", TokenStatus.BONUS, 1)),
                None, None, 0.0)
    assert round_drafts(rnd)[0].text == "␇x"


def test_survival_and_what_each_preset_keeps_by_position() -> None:
    assert survival([0.9, 0.8, 0.5]) == pytest.approx([0.9, 0.72, 0.36])
    assert conditional_from_marginal([0.56, 0.32, 0.2]) == pytest.approx([0.56, 0.32 / 0.56, 0.2 / 0.32])
    n = mtp_numbers()
    for row in n["presets"]:
        assert row["survival"] == pytest.approx(list(itertools.accumulate(row["acceptance"], lambda a, b: a * b)))
        # P(draft k kept) = P(the round drafts k or more) · S_k, and 1 + their sum is the preset's τ
        assert row["kept"] == pytest.approx([r * s for r, s in zip(row["reach"], row["survival"], strict=True)])
        assert row["tau"] == pytest.approx(1 + sum(row["kept"]))
        if row["kind"] in ("chain", "tree", "parallel"):  # every round drafts γ: the reach is 1
            assert row["reach"] == [1.0] * row["gamma"]
            assert row["tau"] == pytest.approx(tau_from_positions(row["acceptance"]))
        preset = get_preset(row["id"], user_dir=Path("/nonexistent"))
        if preset.shape.depth is not None:  # depth varies per round: no full chain each time, τ below it
            assert 1.0 <= row["tau"] < tau_from_positions(row["acceptance"])
            assert row["tau"] == pytest.approx(preset.declared_tau(), rel=0.02)
        m = row["match_rate"]  # a mixture's rounds without a match yield the one target token
        if m is not None:
            assert row["tau"] == pytest.approx(m * tau_from_positions(row["acceptance"]) + 1 - m)
    assert n["medusa_heads"]["marginal"] == list(MEDUSA_HEAD_TOP1)
    assert n["medusa_heads"]["survival_at_most"] == list(MEDUSA_HEAD_TOP1)  # they fall: each is the least so far


@pytest.mark.parametrize("variant", VARIANTS)
def test_fusion_shapes(variant: str) -> None:
    n = fusion_numbers(variant, 4096, 0.25)
    for proj in n["projections"]:
        rows, cols = proj["shape"]
        assert cols == sum(b["shape"][1] for b in proj["blocks"])
        assert all(b["shape"][0] == rows for b in proj["blocks"])
        assert proj["params"] == rows * cols
    if variant == "in-trunk":
        assert n["projections"][0]["shape"] == [4096, 8192] and n["shares_width"]
    if variant == "gemma4":
        assert n["d_draft"] == 1024 and n["shares_kv_cache"] and not n["shares_width"]
    if variant == "medusa":
        assert n["projections"] == [] and not n["token_input"]
    if variant == "eagle3":
        assert [p["shape"] for p in n["projections"]] == [[4096, 12288], [4096, 8192]]


def test_gguf_fusion_check_recognises_the_in_trunk_map() -> None:
    got = gguf_fusion_check([("blk.2.nextn.eh_proj.weight", (256, 512)), ("blk.2.nextn.enorm.weight", (256,))], 256)
    assert [g["in_trunk"] for g in got] == [True, False]


def test_case_numbers_come_from_the_presets() -> None:
    n = case_numbers()
    for column, preset_id in zip(n["columns"], COLUMNS, strict=True):
        p = get_preset(preset_id)
        tau = tau_from_positions(p.acceptance_at(p.temperature))
        assert column["tau"] == pytest.approx(tau)
        assert column["speedup"] == pytest.approx(tau / (p.gamma * p.c + 1))


def test_load_curve_is_speedup_with_the_roofline_verify_ratio() -> None:
    n = load_numbers("h100-sxm", "dense-8b-bf16", "qwen3.6-mtp", 64)
    p = get_preset("qwen3.6-mtp")
    tau = tau_from_positions(p.acceptance_at(p.temperature))
    ridge = 989e12 / 3.35e12
    for b, s in zip(BATCHES, n["curve"], strict=True):
        v = max(1.0, b * 4 / ridge) / max(1.0, b / ridge)
        assert s == pytest.approx(tau / (3 * p.c + v), rel=1e-12)
    assert p.gamma == 3  # the 4-token verify above
    cross = n["crossover_batch"]
    assert cross is not None
    assert tau / (3 * p.c + max(1, cross * 4 / ridge) / max(1, cross / ridge)) < 1
    assert tau / (3 * p.c + max(1, (cross - 1) * 4 / ridge) / max(1, (cross - 1) / ridge)) >= 1
    assert math.isclose(n["speedup"], n["curve"][BATCHES.index(64)])


def test_case_studies_quote_the_claims_each_preset_cites() -> None:
    from specview.catalog.claims import load_claims, preset_value

    claims = load_claims()
    for column in case_numbers()["columns"]:
        p = get_preset(column["preset"])
        cited = {cid for source in p.provenance.values() for cid in source.claims}
        assert cited and {x["id"] for x in column["claims"]} == cited | {f.claim for f in p.findings}
        for x in column["claims"]:
            value = preset_value(p, claims[x["id"]])
            assert x["preset"] == value and x["agrees"] == claims[x["id"]].agrees(value)  # type: ignore[arg-type]
            assert x["stated"] == claims[x["id"]].stated()
    assert load_numbers()["vllm_slowdown"] == claims["vllm-load-slowdown"].high == 1.8
