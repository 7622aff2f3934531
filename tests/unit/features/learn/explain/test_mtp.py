"""Screen 7's numbers: every preset's P(draft k kept) adds up to its τ, as computed and as printed, and each preset
is named for what its numbers are (a chain, a mixture, a varying length, heads read under an assumption)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import pytest

from specview.catalog.presets import load_presets
from specview.features.learn.explain.mtp import SHOWN_K, cents, mtp_numbers, mtp_numbers_for, printed_terms


def test_for_every_preset_the_printed_terms_add_up_to_the_printed_tau() -> None:
    for row in mtp_numbers()["presets"]:
        printed = row["printed"]
        terms = [Decimal(t) for t in printed["terms"]] + ([Decimal(printed["tail"])] if printed["tail"] else [])
        total = Decimal(printed["total"])
        assert 1 + sum(terms) == total.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), row["id"]
        assert Decimal(printed["shown_sum"]) == sum(terms[:SHOWN_K]), row["id"]
        assert printed["total"] == f"{load_presets()[row['id']].tau_at(load_presets()[row['id']].temperature):.3f}"
        # each printed term is its own value to within one hundredth (rounded so that the sum holds)
        exact = row["kept"][:SHOWN_K] + ([sum(row["kept"][SHOWN_K:])] if printed["tail"] else [])
        assert all(abs(float(t) - x) < 0.01 for t, x in zip(terms, exact, strict=True)), row["id"]
        if printed["tail"]:
            assert (printed["tail_from"], printed["tail_to"]) == (SHOWN_K + 1, row["gamma"])


def test_each_preset_is_named_for_what_its_numbers_are() -> None:
    presets = load_presets()
    for row in mtp_numbers()["presets"]:
        p = presets[row["id"]]
        expected = ("mixture" if p.match_rate is not None
                    else ("verify-length" if p.shape.block is not None else "variable-depth") if p.shape.depth
                    else "parallel" if row["school"] == "parallel" else "tree" if p.shape.branches > 1 else "chain")
        assert row["kind"] == expected, row["id"]
        if expected in ("chain", "tree", "parallel"):  # only there is P(draft k kept) the survival S_k
            assert row["kept"] == pytest.approx(row["survival"])
        else:
            assert row["kept"][0] < row["survival"][0] or row["reach"][0] == 1.0
    kinds = {row["id"]: row["kind"] for row in mtp_numbers()["presets"]}
    assert (kinds["ngram"], kinds["suffix"], kinds["dspark"], kinds["medusa"]) == (
        "mixture", "variable-depth", "verify-length", "parallel")


def test_suffix_dspark_ngram_and_medusa_tau_from_what_they_keep() -> None:
    rows = {row["id"]: row for row in mtp_numbers()["presets"]}
    # suffix: 0.8^k over 16 positions sum to 3.887, but most rounds draft few tokens: P(D ≥ k)·S_k sum to 1.006
    assert 1 + sum(rows["suffix"]["survival"]) == pytest.approx(4.887, abs=5e-4)
    assert rows["suffix"]["printed"]["total"] == "2.006" and rows["suffix"]["printed"]["tail"] is not None
    assert rows["dspark"]["printed"]["total"] == "2.593" and 1 + sum(rows["dspark"]["survival"]) > 2.8
    # ngram: τ = 1 + m·Σ S_k with m = 0.2045…, not 0.20·4.57 + 0.80 (1.714)
    m = rows["ngram"]["match_rate"]
    assert m == pytest.approx(0.2045, abs=1e-4) and 1 + m * sum(rows["ngram"]["survival"]) == pytest.approx(1.73)
    # Medusa: the chain of heads is an upper bound, its a_k are an assumption
    medusa = rows["medusa"]
    assert medusa["tau_bound"] and medusa["acceptance_kind"] == "assumed"
    assert medusa["survival"] == pytest.approx(mtp_numbers()["medusa_heads"]["survival_at_most"][:4], abs=1e-4)


@pytest.mark.parametrize(("values", "total"), [
    ([0.62, 0.3844, 0.2383, 0.1478, 0.0916, 0.0568, 0.0352], "1.57"),  # plain rounding would give 1.58
    ([0.1636, 0.1308, 0.1047, 0.0837, 0.067, 0.0536, 0.0429, 0.0837], "0.73"),
    ([0.5, 0.5], "1.00"),
])
def test_cents_add_up_and_stay_within_a_hundredth(values: list[float], total: str) -> None:
    out = cents(values, Decimal(total))
    assert sum(out) == Decimal(total)
    assert all(abs(float(o) - v) < 0.01 for o, v in zip(out, values, strict=True))


def test_printed_terms_of_a_short_chain() -> None:
    printed = printed_terms([0.83, 0.83**2, 0.83**3], 1 + 0.83 + 0.83**2 + 0.83**3)
    assert printed == {"total": "3.091", "terms": ["0.83", "0.69", "0.57"], "shown_sum": "2.09", "tail": None,
                       "tail_from": None, "tail_to": None}
    assert math.isclose(1 + 0.83 + 0.6889 + 0.571787, 3.090687)


def test_one_preset_as_the_screen_shows_it() -> None:
    n = mtp_numbers_for("suffix")
    assert n["presets"][n["selected"]]["id"] == "suffix"
    with pytest.raises(KeyError):
        mtp_numbers_for("no-such-preset")
