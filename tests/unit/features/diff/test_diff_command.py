"""features/diff/command.py and the verdict's exit: the plain reference drops what only drafting has
(so `diff --tree WxD` and `diff --gamma auto` compare against plain greedy instead of refusing), and
a divergence that the same batches reproduce (kernel numerics) exits 0 like an identical run."""

from __future__ import annotations

import pytest

from specview.backends.local.run_options import LlamaRunOptions, llama_options
from specview.backends.local.tree import check_tree, tree_of
from specview.features.diff.model import DEFECT, EXACT, NUMERICS, Cause, DiffResult, Divergence, Emitted
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec

TREE = RunSpec(tree="2x3", temperature=0.0, options=LlamaRunOptions(target="t.gguf", draft="d.gguf"))


def test_the_plain_reference_drops_the_tree_that_no_spec_refuses() -> None:
    plain = RunSpec(tree="2x3", plain=True, options=LlamaRunOptions(target="t.gguf", draft="d.gguf"))
    with pytest.raises(BackendError, match="--no-spec drafts nothing"):  # a plain run with a tree, as before
        check_tree(tree_of(plain.tree), "d.gguf", plain=True, adaptive=False)
    reference = plain.plain_reference()
    assert reference.plain and reference.tree is None and reference.options == plain.options
    check_tree(tree_of(reference.tree), "d.gguf", plain=True, adaptive=False)  # nothing left to refuse
    assert RunSpec(gamma_auto=True, plain=True,
                   options=LlamaRunOptions(target="t.gguf")).plain_reference().gamma_auto is False


def test_the_speculative_run_keeps_its_tree() -> None:
    assert TREE.plain_reference() == TREE


def _result(cause: Cause | None) -> DiffResult:
    one = Emitted(1, "a", 0, "plain")
    return DiffResult("plain", "tree", 0, Divergence(0, one, Emitted(2, "b", 0, "accepted"), "", by_text=False),
                      cause=cause)


def test_lossless_is_identical_or_kernel_numerics() -> None:
    assert DiffResult("plain", "tree", 4, None, cause=Cause(EXACT)).lossless
    assert _result(Cause(NUMERICS, batch_width=7, position=0)).lossless
    assert not _result(Cause(DEFECT, defect_at=0)).lossless
    assert not _result(None).lossless  # servers: no replay to tell numerics from a loss
    assert _result(Cause(NUMERICS)).to_dict()["lossless"] is True


def test_compares_plain_selector_beside_a_tree_drops_the_tree_and_the_other_keeps_it() -> None:
    """`compare llama:T llama:T+D --tree 2x3`: the plain side is plain greedy, not a refusal."""
    from specview.backends.selector import parse_selector

    base = RunSpec(tree="2x3", gamma_auto=False)
    plain, tree = parse_selector("llama:t.gguf", base), parse_selector("llama:t.gguf+d.gguf", base)
    assert plain.plain and plain.tree is None
    check_tree(tree_of(plain.tree), "ngram", plain=True, adaptive=False)
    assert not tree.plain and tree.tree == "2x3" and llama_options(tree).draft == "d.gguf"
