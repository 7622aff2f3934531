"""The scale a history chart is drawn on, and where a value sits on it."""

from __future__ import annotations

from specview.widgets.chart_scale import RATE, Scale, column_rows, scale_label, scale_of


def test_a_constant_rate_of_one_fills_its_column_on_the_rate_scale() -> None:
    """α 1.00 for the whole window: full columns at the top, not a row of ▁ at the bottom."""
    scale = scale_of([1.0] * 10, RATE)
    assert scale == Scale(0.0, 1.0)
    rows = column_rows([1.0] * 10, scale, 3)
    assert rows == ["█" * 10] * 3
    assert scale_label(scale.high, rate=True) == "1.00" and scale_label(scale.low, rate=True) == "0.00"


def test_a_rate_sits_at_its_value_whatever_the_rest_of_the_series() -> None:
    rows = column_rows([0.5, 0.5, 1.0], scale_of([0.5, 0.5, 1.0], RATE), 2)
    assert rows == ["  █", "███"]  # a half-full column on the 0–1 scale: the bottom row of two
    rows = column_rows([0.5] * 4, scale_of([0.5] * 4, RATE), 2)
    assert rows == ["    ", "████"]  # constant 0.5 still half way, never at the top or the bottom


def test_a_constant_gamma_sits_at_its_value_with_the_range_stated() -> None:
    """γ 3 every round: drawn on 0 … 3, full columns, the ends said "3" and "0"."""
    scale = scale_of([3.0] * 6)
    assert (scale_label(scale.high), scale_label(scale.low)) == ("3", "0")
    assert column_rows([3.0] * 6, scale, 3) == ["█" * 6] * 3
    # a lower γ later sits at its share of the top: 2 of 3 on three rows fills two
    assert column_rows([3.0, 2.0], scale_of([3.0, 2.0]), 3) == ["█ ", "██", "██"]


def test_missing_values_are_gaps_and_a_present_zero_is_still_seen() -> None:
    rows = column_rows([None, 0.0, 1.0], scale_of([None, 0.0, 1.0], RATE), 1)
    assert rows == [" ▁█"]
    assert scale_of([]) == Scale(0.0, 1.0) and scale_of([0.0, 0.0]) == Scale(0.0, 1.0)


def test_scale_labels_stay_short() -> None:
    shown = [scale_label(v) for v in (0.0, 3.0, 2.75, 42.5, 1234.0, 34000.0)]
    assert shown == ["0", "3", "2.75", "42.5", "1.2k", "34k"]
