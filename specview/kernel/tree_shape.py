"""`--tree WxD`: how wide and how deep a draft tree is, and the bounds that keep its batch small.

The local loop drafts the chain a chain drafter would (one draft-model step per depth) and, at
each depth, branches the draft's next W − 1 most probable tokens beside it: W × D nodes, one
target batch of W × D + 1 tokens, (W − 1) × D + 1 leaves, each leaf one llama.cpp sequence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from specview.texts.catalog import Phrase

MAX_WIDTH = 8  # candidates per depth; past q's top few the target's token is rarely there
MAX_DEPTH = 16
MAX_NODES = 64  # one verification batch (≪ n_batch 512) and at most 57 sequences (llama.cpp allows 256)
_SHAPE = re.compile(r"([0-9]{1,4})x([0-9]{1,4})")


@dataclass(frozen=True, slots=True)
class TreeShape:
    width: int
    depth: int

    @property
    def nodes(self) -> int:
        return self.width * self.depth

    @property
    def draft_steps(self) -> int:
        """Draft forwards per round: one per depth (a depth's W candidates come from one q)."""
        return self.depth

    @property
    def verify_drafts(self) -> int:
        """Drafts in the round's verify batch: every node, so its cost is v(nodes), not v(depth)."""
        return self.nodes

    @property
    def leaves(self) -> int:
        return (self.width - 1) * self.depth + 1

    def __str__(self) -> str:
        return f"{self.width}x{self.depth}"


def parse_tree(text: str) -> TreeShape:
    """`3x4` → TreeShape(3, 4); otherwise ValueError whose one argument is the reason, a Phrase (the
    text is the user's: it is never quoted)."""
    m = _SHAPE.fullmatch(text.strip().lower())
    if m is None:
        raise ValueError(Phrase("cli_errors.tree.shape"))
    width, depth = int(m.group(1)), int(m.group(2))
    if width < 1 or depth < 1:
        raise ValueError(Phrase("cli_errors.tree.at_least_one", width=width, depth=depth))
    if width > MAX_WIDTH or depth > MAX_DEPTH or width * depth > MAX_NODES:
        raise ValueError(Phrase("cli_errors.tree.too_big", width=width, depth=depth, max_width=MAX_WIDTH,
                                max_depth=MAX_DEPTH, max_nodes=MAX_NODES))
    return TreeShape(width, depth)
