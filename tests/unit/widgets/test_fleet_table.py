"""The fleet table's lines: as wide as their columns whatever the script, so the widget can pad
them without measuring (widgets/fleet_table.py), and a right-aligned wide label stays aligned."""

from __future__ import annotations

import math

import pytest
from rich.cells import cell_len

from specview.kernel.stats import _gamma_q, chi_square_sf
from specview.widgets.fleet_table import line_text

WIDTHS = (8, 6, 4, 12)


@pytest.mark.parametrize("cells", [
    ("速率", "1.0", "ab", "▁▂▃▄▅▆▇█"),  # a zh header label, right-aligned: padded by cells, not characters
    ("instance-with-a-long-name", "0.73", "—", "x"),  # cut with …
    ("a", "b", "c", "d"),
    ("草稿/秒草稿/秒", "词元/秒", "γ", "状态"),  # wider than its column in cells
])
def test_a_line_is_exactly_as_wide_as_its_columns(cells: tuple[str, ...]) -> None:
    line = line_text(cells, WIDTHS, (True, True, False, False))
    assert cell_len(line) == sum(WIDTHS) + len(WIDTHS) - 1


def test_a_right_aligned_wide_label_ends_where_its_column_ends() -> None:
    line = line_text(("速率", "x"), (8, 1), (True, False))
    assert line == "    速率 x"


@pytest.mark.parametrize("statistic", [0.0, 0.01, 0.5, 1.0, 3.84, 10.0, 30.0, 100.0])
def test_one_degree_of_freedom_in_closed_form_agrees_with_the_series(statistic: float) -> None:
    expected = 1.0 if statistic == 0 else _gamma_q(0.5, statistic / 2)
    assert math.isclose(chi_square_sf(statistic, 1), expected, rel_tol=1e-9, abs_tol=1e-300)
