"""A local run's options (backends/local/options.py): checked when made, before any model loads, and
read from a RunSpec field by field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from specview.backends.local.backend import LlamaBackend
from specview.backends.local.gamma_auto import START_GAMMA
from specview.backends.local.options import DEFAULT_GAMMA, LlamaOptions
from specview.backends.local.prompt_format import TemplateOrigin
from specview.backends.local.run_options import LlamaRunOptions
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from specview.kernel.tree_shape import TreeShape

TREE = TreeShape(2, 3)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"gamma_auto": True, "gamma": 3}, "backenderr.llama.auto_fixed"),
        ({"gamma_auto": True, "plain": True}, "backenderr.llama.auto_plain"),
        ({"gamma_auto": True, "adaptive": True}, "backenderr.llama.auto_adaptive"),
        ({"gamma_auto": True, "draft": "d.gguf", "tree": TREE}, "backenderr.llama.auto_tree"),
        ({"tree": TREE, "plain": True}, "backenderr.tree.no_spec"),
        ({"tree": TREE}, "backenderr.tree.ngram"),
        ({"tree": TREE, "draft": "d.gguf", "adaptive": True}, "backenderr.tree.adaptive"),
        ({"gamma": 0}, "backenderr.llama.gamma"),
        ({"gamma": 99}, "backenderr.llama.gamma"),
        ({"temperature": -0.5}, "backenderr.llama.temperature"),
        ({"max_tokens": 0}, "backenderr.llama.max_tokens"),
    ],
)
def test_a_contradiction_or_a_value_out_of_range_fails_when_the_options_are_made(
        fields: dict[str, Any], error: str) -> None:
    with pytest.raises(BackendError) as raised:
        LlamaOptions(**fields)
    assert raised.value.phrase.key == error


def test_the_backend_checks_its_options_before_it_looks_for_a_model(tmp_path: Path) -> None:
    """Bad options name themselves, not the missing model file."""
    with pytest.raises(BackendError) as raised:
        LlamaBackend(tmp_path / "missing.gguf", LlamaOptions(gamma=99))
    assert raised.value.phrase.key == "backenderr.llama.gamma"


@pytest.mark.parametrize(
    ("fields", "gamma"),
    [({}, DEFAULT_GAMMA), ({"gamma": 6}, 6), ({"gamma_auto": True}, START_GAMMA),
     ({"draft": "d.gguf", "tree": TREE}, TREE.depth), ({"draft": "d.gguf", "tree": TREE, "gamma": 7}, TREE.depth)],
)
def test_drafting_starts_at_the_gamma_asked_for_a_trees_depth_or_the_default(fields: dict[str, Any],
                                                                               gamma: int) -> None:
    assert LlamaOptions(**fields).draft_gamma == gamma


def test_a_runspec_gives_every_option_it_names() -> None:
    spec = RunSpec(plain=False, gamma=5, tree=None, temperature=0.7, seed=9,
                   options=LlamaRunOptions(draft="d.gguf", adaptive=True, chat_template="gemma",
                                           chat_template_from="config", gpu_layers=0, threads=3, repack=False))
    options = LlamaOptions.from_spec(spec, prompt="hello", max_tokens=12)
    assert options == LlamaOptions(draft="d.gguf", gamma=5, adaptive=True, prompt="hello", chat_template="gemma",
                                   chat_template_from=TemplateOrigin.CONFIG, max_tokens=12, temperature=0.7, seed=9,
                                   gpu_layers=0, n_threads=3, repack=False)
    # what a RunSpec leaves unset: the n-gram drafter, greedy decoding, the template named on the command line
    assert LlamaOptions.from_spec(RunSpec(), prompt="x", max_tokens=1) == LlamaOptions(prompt="x", max_tokens=1)
    tree = LlamaOptions.from_spec(RunSpec(tree="2x3",
                                          options=LlamaRunOptions(draft="d.gguf")), prompt="x", max_tokens=1)
    assert tree.tree == TREE
