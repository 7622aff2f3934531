"""Reading specview's live screen as captured from a terminal: the stream panel and each status's look."""

from __future__ import annotations

from collections import Counter

from tests.support.tmux_pane import SGR, Run, styled_runs

STATUSES = ("accepted", "rejected", "corrected", "bonus")


def stream_bounds(rows: list[str]) -> tuple[int, int]:
    """Indices of the stream panel's top and bottom border rows (equal when there is none)."""
    top = next((i for i, row in enumerate(rows) if "╭─ stream" in row), len(rows))
    bottom = next((i for i, row in enumerate(rows) if i > top and row.lstrip().startswith("╰")), top)
    return top, bottom


def stream_rows(screen: str) -> list[str]:
    """The text inside the stream panel (its borders, the legend and the side panel left out)."""
    rows = SGR.sub("", screen).splitlines()
    top, bottom = stream_bounds(rows)
    return [row.split("││")[0].split("│")[1] if "│" in row else row for row in rows[top + 1:bottom]]


def stream_runs(screen: str) -> list[Run]:
    """Styled runs inside the stream panel of a screen captured with escapes."""
    rows = screen.splitlines()
    top, bottom = stream_bounds(SGR.sub("", screen).splitlines())
    runs: list[Run] = []
    for row in rows[top + 1:bottom]:
        borders = 0
        for run in styled_runs(row):
            borders += run.text.count("│")
            if borders >= 2:  # the stream's right border: the side panel follows
                break
            if borders == 1 and "│" not in run.text:
                runs.append(run)
    return runs


def status_looks(screen: str) -> dict[str, Counter[tuple[str, frozenset[int]]]]:
    """For each status seen in the stream, how often each (foreground, attributes) drew it."""
    looks: dict[str, Counter[tuple[str, frozenset[int]]]] = {s: Counter() for s in STATUSES}
    for run in stream_runs(screen):
        body = run.text.strip()
        if not any(ch.isalnum() for ch in body):
            continue
        if 9 in run.attrs:
            status = "rejected"
        elif body.startswith("▸") or body.endswith("▸"):
            status = "corrected"
        elif body.endswith("⁺") or body.startswith("⁺"):
            status = "bonus"
        else:
            status = "accepted"
        looks[status][(run.fg, run.attrs)] += 1
    return {s: c for s, c in looks.items() if c}


def status_colours(screen: str) -> dict[str, str]:
    """Each status's most common foreground colour in the stream."""
    return {s: looks.most_common(1)[0][0][0] for s, looks in status_looks(screen).items()}
