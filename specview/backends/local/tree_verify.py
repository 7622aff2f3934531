"""One target batch for a whole draft tree, and the rollback to the accepted path.

llama.cpp masks attention by sequence: a token sees the cached cells of its (first) sequence
at positions up to its own. So each leaf of the tree gets a sequence, every node belongs to the
sequences of the leaves below it, and each node sits at position n_past + its depth: a node then
sees the committed text and exactly its ancestors, never a sibling's branch. Sequence 0 is the
leaf reached through every node's first child (the chain a chain drafter would have drafted);
the other leaves' sequences get the committed prefix first (llama_memory_seq_cp, metadata only
in the unified cache that `ModelRunner.open_context(n_seq=…)` makes).

Afterwards only the accepted path stays, as sequence 0: the cells of a leaf below the path's
end are copied to sequence 0 up to that end, and llama_memory_seq_keep(0) frees every other cell.
"""

from __future__ import annotations

from specview.backends.local.model import Logits, ModelRunner
from specview.backends.reason import role_word
from specview.kernel.errors import BackendError
from specview.kernel.tree_sampling import DraftTree


def leaf_sequences(tree: DraftTree) -> tuple[list[int], list[list[int]]]:
    """Each node's leaf-sequence ids (the leaves below it), and each node's first leaf below it.

    Sequence 0 is the leaf down the first children; the other leaves are numbered in node order."""
    n = len(tree.tokens)
    first_leaf = [0] * n
    for i in range(n - 1, -1, -1):
        kids = tree.children[i]
        first_leaf[i] = i if not kids else first_leaf[kids[0]]
    order = [first_leaf[0]] + [leaf for leaf in tree.leaves() if leaf != first_leaf[0]]
    seq_of_leaf = {leaf: s for s, leaf in enumerate(order)}
    seqs: list[list[int]] = [[] for _ in range(n)]
    for leaf, s in seq_of_leaf.items():
        node = leaf
        while node != -1:
            seqs[node].append(s)
            node = tree.parents[node]
    return [seq_of_leaf[first_leaf[i]] for i in range(n)], [sorted(s) for s in seqs]


def eval_tree(runner: ModelRunner, tree: DraftTree) -> tuple[Logits, list[int]]:
    """Evaluate root + every node in one batch; one logits row per node, in node order.

    Returns the rows and each node's first leaf sequence (what `keep_path` needs). The runner's
    `n_past` is left at the committed length: the tree's cells are not committed yet."""
    n = len(tree.tokens)
    if n > runner.n_batch or runner.n_past + tree.depth + 1 > runner.n_ctx:
        raise BackendError("backenderr.tree.too_big", n=n, role=role_word(runner.role))
    first_seq, seqs = leaf_sequences(tree)
    lib, mem = runner.lib, runner.lib.llama_get_memory(runner.ctx)
    n_seqs = max(max(s) for s in seqs) + 1
    for s in range(1, n_seqs):
        lib.llama_memory_seq_rm(mem, s, -1, -1)
        if runner.n_past:
            lib.llama_memory_seq_cp(mem, 0, s, 0, runner.n_past)
    b = runner.batch
    for i, tok in enumerate(tree.tokens):
        b.token[i] = tok
        b.pos[i] = runner.n_past + tree.depths[i]
        b.n_seq_id[i] = len(seqs[i])
        for j, s in enumerate(seqs[i]):
            b.seq_id[i][j] = s
        b.logits[i] = True
    b.n_tokens = n
    rows = runner.decode_batch(n)
    return rows, first_seq


def keep_path(runner: ModelRunner, tree: DraftTree, path: tuple[int, ...], first_seq: list[int]) -> None:
    """Keep the committed prefix, the root and the accepted `path` as sequence 0; free the rest."""
    lib, mem = runner.lib, runner.lib.llama_get_memory(runner.ctx)
    end = path[-1] if path else 0
    keep_to = runner.n_past + len(path) + 1  # positions [0, keep_to) stay
    s = first_seq[end]
    if s != 0:
        lib.llama_memory_seq_rm(mem, 0, runner.n_past, -1)
        lib.llama_memory_seq_cp(mem, s, 0, runner.n_past, keep_to)
    lib.llama_memory_seq_keep(mem, 0)
    if not lib.llama_memory_seq_rm(mem, 0, keep_to, -1):
        raise BackendError("backenderr.tree.no_rollback", role=role_word(runner.role))
    runner.n_past = keep_to
