"""What a preset says beyond one fixed chain: depth that varies, a block, a tree, decay with context.

- `block = B`: a block drafter (DFlash, DSpark) proposes B tokens in one forward; γ (what is
  verified) is at most B. Acceptance along the block is the per-position list, which for these
  drafters falls with position.
- `[depth] weights = [w0, w1, …, wγ]`: the share of rounds that draft k tokens, k = 0…γ: a
  verify length chosen per round (DSpark's confidence head), or a match of varying length
  (suffix decoding, from the request's own history); w0 is the rounds that draft nothing.
- `[tree] branches = k`: a tree with k candidates per depth (EAGLE-3's top-k); the target keeps
  the first that matches, so a depth passes with 1 − (1 − a)^k where one branch passes with a
  (branches taken as independent: an assumption). The acceptance lists are one branch's.
- `[acceptance.context] half_life = H, floor = f`: acceptance scales by f + (1 − f)·2^(−n/H) at
  absolute position n (prompt + output): a drafter that loses its grip as the context grows.

Every parse error is one PresetError naming the file and the key; nothing is built from a
value that failed its check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from specview.boundary.text import shown
from specview.kernel.errors import PresetError
from specview.kernel.theory import MAX_GAMMA

MAX_BRANCHES = 16  # candidates per tree depth (EAGLE-3 uses up to 10)
MAX_HALF_LIFE = 1e9  # tokens
_SUM_TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True)
class Shape:
    """The preset's shape beyond a chain (each part None / 1 when the preset has none)."""

    block: int | None = None
    depth: tuple[float, ...] | None = None  # P(γ = k), k = 0 … preset γ
    branches: int = 1
    half_life: float | None = None  # tokens; None: no decay with context
    floor: float = 0.0

    def context_factor(self, position: float) -> float:
        """What acceptance is multiplied by at this absolute position."""
        if self.half_life is None or position <= 0:
            return 1.0
        return self.floor + (1.0 - self.floor) * math.pow(2.0, -position / self.half_life)

    def tree(self, acceptance: float) -> float:
        """One depth's acceptance with `branches` candidates, from one branch's."""
        return 1.0 - (1.0 - acceptance) ** self.branches if self.branches > 1 else acceptance

    def depth_at(self, gamma: int) -> tuple[float, ...] | None:
        """P(γ = k), k = 0…gamma, for a run at another γ: the share of longer rounds drafts `gamma`."""
        if self.depth is None:
            return None
        kept = list(self.depth[: gamma + 1])
        kept += [0.0] * (gamma + 1 - len(kept))
        kept[gamma] += sum(self.depth[gamma + 1:])
        return tuple(kept)

    @property
    def features(self) -> tuple[str, ...]:
        """The provenance fields this shape needs (`depth` for block, depth and tree; `context`)."""
        out = []
        if self.block is not None or self.depth is not None or self.branches > 1:
            out.append("depth")
        if self.half_life is not None:
            out.append("context")
        return tuple(out)


def _integer(value: Any, key: str, low: int, high: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PresetError("catalogerr.shape.whole", where=where, key=key, value=shown(value), low=low, high=high)
    return value


def _real(value: Any, key: str, low: float, high: float, where: str, *, open_low: bool = False) -> float:
    ok = not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
    if not ok or not (low < value if open_low else low <= value) or not value <= high:
        if open_low:
            raise PresetError("catalogerr.shape.open_range", where=where, key=key, value=shown(value), low=low,
                              high=high)
        raise PresetError("catalogerr.preset.out_of_range", where=where, key=key, value=shown(value), low=low,
                          high=high)
    return float(value)


def _table(data: dict[str, Any], key: str, where: str) -> dict[str, Any] | None:
    value = data.get(key)
    if value is not None and not isinstance(value, dict):
        raise PresetError("catalogerr.shape.table", where=where, key=key, value=shown(value))
    return value


def parse_shape(data: dict[str, Any], acc: dict[str, Any], gamma: int, where: str) -> Shape:
    """`block`, `[depth]`, `[tree]` and `[acceptance.context]` of one preset, validated against γ."""
    block = None
    if "block" in data:
        block = _integer(data["block"], "block", 1, MAX_GAMMA, where)
        if gamma > block:
            raise PresetError("catalogerr.shape.block", where=where, gamma=gamma, block=block)
    depth = None
    if (table := _table(data, "depth", where)) is not None:
        weights = table.get("weights")
        if not isinstance(weights, list) or len(weights) != gamma + 1:
            raise PresetError("catalogerr.shape.depth_list", where=where, count=gamma + 1)
        depth = tuple(_real(w, f"depth.weights[{k}]", 0.0, 1.0, where) for k, w in enumerate(weights))
        if abs(sum(depth) - 1.0) > _SUM_TOLERANCE:
            raise PresetError("catalogerr.shape.depth_sum", where=where, total=sum(depth))
        if acc.get("mixture") is not None:
            raise PresetError("catalogerr.shape.depth_and_mixture", where=where)
    branches = 1
    if (table := _table(data, "tree", where)) is not None:
        branches = _integer(table.get("branches"), "tree.branches", 1, MAX_BRANCHES, where)
    half_life, floor = None, 0.0
    if (table := _table(acc, "context", where)) is not None:
        half_life = _real(table.get("half_life"), "acceptance.context.half_life", 0.0, MAX_HALF_LIFE, where,
                          open_low=True)
        floor = _real(table.get("floor", 0.0), "acceptance.context.floor", 0.0, 1.0, where)
    return Shape(block, depth, branches, half_life, floor)
