"""What each node of a tree round's lost branches hangs from (`Round.lost_from`), and its check.

A tree round (backends/local/tree.py) shows its accepted path in `Round.tokens` and every other
node in `Round.lost`, position = depth − 1. `lost_from[i]` names the parent of `lost[i]`: the
accepted path (ON_PATH: its node at depth `position`), the rejected token the round shows
(BELOW_REJECTED), or an earlier lost node (its index in `lost`). That is the whole tree, so the
token view can draw each lost branch from where it left the path (kernel/lost_branches.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specview.boundary.bounds import MAX_ROUND_DRAFTS, Invalid, integer, sequence

ON_PATH = -1
BELOW_REJECTED = -2


def checked_lost_from(data: Any, depths: Sequence[int | None], rejected: int | None, field: str) -> tuple[int, ...]:
    """A recording's `lost_from` checked against the tree it describes: one entry per lost token
    (`depths` their positions), each naming the path, the rejected token shown (at position
    `rejected`) or an earlier lost token, one depth above it. Empty: not recorded."""
    items = sequence(data, field, MAX_ROUND_DRAFTS)
    if not items:
        return ()
    if len(items) != len(depths):
        raise Invalid(f"{field} has {len(items)} entries for {len(depths)} lost tokens")
    out = []
    for i, item in enumerate(items):
        parent = integer(item, f"{field}[{i}]", BELOW_REJECTED, max(i - 1, ON_PATH))
        depth = depths[i]
        above = depths[parent] if parent >= 0 else (rejected if parent == BELOW_REJECTED else None)
        if parent != ON_PATH and (depth is None or above is None or above != depth - 1):
            raise Invalid(f"{field}[{i}] names a parent that is not one depth above it")
        out.append(parent)
    return tuple(out)


def leaf_chains(lost_from: Sequence[int], count: int) -> list[tuple[list[int], int]]:
    """Each lost leaf's branch: (the indices into `lost` from where it left the path down to the
    leaf, what its first token hangs from: ON_PATH or BELOW_REJECTED), in the order of the leaves.
    Without `lost_from` (a recording made before it was kept) each lost token is its own branch."""
    parents = lost_from if len(lost_from) == count else (ON_PATH,) * count
    inner = {p for p in parents if p >= 0}
    out = []
    for leaf in range(count):
        if leaf in inner:
            continue
        chain, parent = [leaf], parents[leaf]
        while parent >= 0:
            chain.append(parent)
            parent = parents[parent]
        chain.reverse()
        out.append((chain, parent))
    return out
