"""The fleet table's words without a terminal: what fits a width, the sort order, the sparkline, the filter."""

from __future__ import annotations

import time

import pytest
from rich.cells import cell_len

from specview.features.watch.model.fleet import State
from specview.features.watch.screen.fleet_cells import (
    COLUMNS,
    GAP,
    fitting,
    row_cells,
    short_instance,
    sort_rows,
    sparkline,
)
from specview.features.watch.screen.fleet_filter import FIELD_CHARS, FilterError, FleetFilter, compile_filter
from specview.kernel.langs import LANGS
from specview.widgets.fleet_table import line_text
from tests.support.fleet_snapshots import five, row


@pytest.mark.parametrize("lang", LANGS)
def test_every_width_gets_lines_exactly_as_wide_and_the_key_columns_first(lang: str) -> None:
    rows = [*five().rows, row("http://" + "名" * 300 + ":1")]  # wide characters, a very long instance
    for width in range(40, 260):
        columns, widths = fitting(width)
        assert sum(widths) + GAP * (len(widths) - 1) == width
        if width >= 50:  # the marks, the instance, α and the state always, from 50 cells on
            assert {"mark", "instance", "alpha", "state"} <= {c.id for c in columns}
        for r in rows:
            assert cell_len(line_text(row_cells(r, columns, widths, lang), widths, [c.right for c in columns])) == width
    assert len(fitting(80)[0]) < len(fitting(200)[0]) == len(COLUMNS)


def test_rows_without_a_value_stay_last_in_either_order() -> None:
    rows = five().rows
    for reverse in (False, True):
        by_alpha = [r.instance[-4:] for r in sort_rows(rows, "alpha", reverse)]
        assert by_alpha[-1] == "8004"  # down: no α
    assert sort_rows(rows, "state", False)[0].state is State.DOWN


def test_the_sparkline_is_fixed_width_on_a_0_to_1_scale() -> None:
    assert sparkline([0.0, 0.5, 1.0, None]) == " " * 8 + "▁▅█ "
    assert len(sparkline([0.3] * 100)) == 12


def test_the_instance_column_drops_the_scheme_and_keeps_the_end() -> None:
    assert short_instance("http://10.0.0.1:8080") == "10.0.0.1:8080"
    long = short_instance("https://" + "x" * 500 + ":9999")
    assert long.startswith("…") and long.endswith(":9999")
    assert "\x1b" not in short_instance("http://a\x1b[31m:1")


@pytest.mark.parametrize("pattern", ["(a|aa)*b", "(a+)+$", "(?:ab)*c", r"(a)\1", "a*b*c*", "(?>a+)b"])
def test_patterns_whose_time_is_not_bounded_are_refused(pattern: str) -> None:
    with pytest.raises(FilterError):
        compile_filter(pattern)


def test_an_accepted_pattern_matches_the_worst_field_quickly() -> None:
    worst = FleetFilter.of(r"\w*?\w*?x")
    started = time.perf_counter()
    assert not worst.matches(*("a" * 10_000 for _ in range(3)))  # each field cut to FIELD_CHARS
    assert time.perf_counter() - started < 1.0
    assert FleetFilter.of("LLAMA|vllm").matches("", "vllm · eagle3")
    assert not FleetFilter.of("tail$").matches("x" * FIELD_CHARS + "tail")  # beyond the matched length
