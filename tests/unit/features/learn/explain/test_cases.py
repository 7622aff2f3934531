"""Screen 9's reported gains: the article's figures beside each design, read from the claims that state them."""

from __future__ import annotations

from specview.catalog.claims import load_claims
from specview.features.learn.explain.cases import COLUMNS, REPORTED, case_numbers, reported_gains


def test_the_reported_gains_are_the_articles_with_who_reported_them() -> None:
    assert set(REPORTED) == set(COLUMNS)
    qwen, gemma, glm = (reported_gains(p) for p in ("qwen3.6-mtp", "gemma4-drafter", "glm-5.2-mtp"))
    assert qwen["figures"] == {"low": 2.2, "high": 2.4} and qwen["by"] == ["independent"]  # third party
    assert gemma["figures"] == {"most": 3.0, "apple": 2.2} and gemma["by"] == ["vendor"]  # Google
    assert glm["figures"] == {"tau": 5.47} and glm["gamma"] == 7 and glm["by"] == ["vendor"]
    claims = load_claims()
    assert claims["gemma4-speedup-max"].high == 3.0 and claims["gemma4-speedup-max"].value is None  # "up to"


def test_no_column_counts_an_input_as_a_failed_reproduction() -> None:
    for column in case_numbers()["columns"]:
        assert column["reported"] == reported_gains(column["preset"])
        for claim in column["claims"]:
            assert not claim["reproduced"] or claim["role"] == "check"
