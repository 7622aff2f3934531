"""The local llama.cpp backend's errors that need a real model (tiny llama GGUFs written at test
time, real llama.cpp): each reads in Chinese with its fields, and its English is the text it was."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gguf")

from specview.backends.local.model import ModelRunner
from specview.backends.local.prompt_format import TemplateOrigin, prepare_prompt
from specview.backends.local.tree_verify import eval_tree
from specview.backends.local.vocab import check_vocab
from specview.kernel.errors import BackendError, describe_error
from specview.kernel.tree_sampling import DraftTree
from tests.support.gguf_factory import write_tiny_llama

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("errors")
    target = write_tiny_llama(d / "target.gguf")
    cut = d / "cut.gguf"
    cut.write_bytes(target.read_bytes()[: target.stat().st_size // 2])  # a GGUF header, half its weights
    return {"target": target, "other": write_tiny_llama(d / "other.gguf", vocab="other-pieces"), "cut": cut}


@pytest.fixture
def target(models: dict[str, Path]) -> Iterator[ModelRunner]:
    runner = ModelRunner(models["target"], role="target", n_gpu_layers=0, n_threads=1)
    yield runner
    runner.close()


def zh_of(error: BackendError, key: str, *data: str) -> str:
    """The error's Chinese, checked: its id, CJK, no hole, the data; its English has none of that."""
    assert error.phrase.key == key
    zh = describe_error(error, "zh")
    assert CJK.search(zh) and "?" not in zh, zh
    assert all(value in zh for value in data), (data, zh)
    assert not CJK.search(str(error))
    return zh


def test_a_draft_of_another_vocabulary_says_so_in_chinese(models: dict[str, Path], target: ModelRunner) -> None:
    draft = ModelRunner(models["other"], role="draft", n_gpu_layers=0, n_threads=1)
    try:
        with pytest.raises(BackendError) as err:
            check_vocab(target, draft)
    finally:
        draft.close()
    assert str(err.value).startswith("draft model other.gguf does not share the target's vocabulary (target.gguf): "
                                     "token ")
    zh = zh_of(err.value, "backenderr.vocab.mismatch", "other.gguf", "target.gguf")
    assert "草稿模型" in zh and "：token " in zh and "草稿为" in zh  # the reason, in Chinese too


def test_an_unknown_chat_template_is_named_in_chinese(target: ModelRunner) -> None:
    with pytest.raises(BackendError) as err:
        prepare_prompt(target, "the cat sat", "chatm1", TemplateOrigin.CONFIG)
    assert str(err.value).startswith('chat_template = "chatm1" in the config: no such chat template; known: ')
    zh = zh_of(err.value, "backenderr.prompt.unknown", "chatm1", "chatml", "none")
    assert zh.startswith('配置文件中的 chat_template = "chatm1"：没有这个对话模板')


def test_a_model_file_cut_short_cannot_load_and_says_so_in_chinese(models: dict[str, Path]) -> None:
    with pytest.raises(BackendError) as err:
        ModelRunner(models["cut"], role="target", n_gpu_layers=0, n_threads=1)
    assert str(err.value).startswith(f"could not load the target model {models['cut']}")
    zh_of(err.value, err.value.phrase.key, "无法加载目标模型", "cut.gguf")
    assert err.value.phrase.key in ("backenderr.pool.not_loaded", "backenderr.pool.not_loaded_unsaid")


def test_a_full_context_and_a_tree_too_big_say_so_in_chinese(target: ModelRunner) -> None:
    target.open_context(16, n_batch=8)
    with pytest.raises(BackendError) as full:
        target.prefill(list(range(5, 30)))
    assert str(full.value) == "the target context is full (16 tokens)"
    zh_of(full.value, "backenderr.model.context_full", "目标模型", "16")
    target.reset()
    tree = DraftTree(tuple(range(5, 17)), (-1, *range(11)))  # 12 nodes in a chain: more than the batch of 8
    with pytest.raises(BackendError) as big:
        eval_tree(target, tree)
    assert str(big.value) == "a draft tree of 12 tokens does not fit the target batch or context"
    zh_of(big.value, "backenderr.tree.too_big", "12", "目标模型")
