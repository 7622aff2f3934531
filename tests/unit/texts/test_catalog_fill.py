"""Every catalog template is filled by `fill()`: a translator's slip reads "?" and never crashes a view."""

from __future__ import annotations

import pytest

from specview.cli.parser import build_parser
from specview.texts.catalog import catalog, fill

PLANTED = "test.planted"


@pytest.mark.parametrize(("template", "shown"), [
    ("α {alpah:.2f} · γ {gamma}", "α ? · γ 3"),  # a field the code does not give, with a format
    ("α {alpha:.2f} · γ {gamma:.2f}", "α 0.81 · γ 3.00"),  # as written: the same as str.format
    ("γ {gamma:%}", "γ 300.000000%"),
    ("{name:.2f} is not a number", "? is not a number"),  # a format that does not fit the value
    ("{alpha.real} {name[0]} {name.__class__} {0} {}", "? ? ? ? ?"),  # plain names only
    ("{alpha!r} {name!x}", "0.8125 ?"),  # an unknown conversion
    ("γ {gamma", "γ {gamma"),  # unbalanced braces: the words as written
    ("γ } {gamma}", "γ } {gamma}"),
    ("{{literal}} {gamma}", "{literal} 3"),
])
def test_a_planted_template_with_a_typo_degrades_to_a_question_mark(
        monkeypatch: pytest.MonkeyPatch, template: str, shown: str) -> None:
    monkeypatch.setitem(catalog("zh"), PLANTED, template)
    assert fill(PLANTED, "zh", alpha=0.8125, gamma=3, name="sim") == shown


def test_a_template_field_may_share_a_name_with_fills_own_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(catalog("en"), PLANTED, "{key} in {lang}")
    assert fill(PLANTED, "en", key="k", lang="zh") == "k in zh"


def test_calc_with_a_translators_typo_still_prints_its_verdict(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`specview calc` filled its template with str.format: a misspelt field was a KeyError."""
    monkeypatch.setitem(catalog("zh"), "learn.calc.helps", "α > c：至少 {bund:.4f}×，即 {bound:.3f}×")
    args = build_parser().parse_args(["calc", "--alpha", "0.8", "--gamma", "3", "--c", "0.05", "--lang", "zh"])
    assert args.run(args) == 0
    out = capsys.readouterr().out
    assert "至少 ?×，即 1.714×" in out
