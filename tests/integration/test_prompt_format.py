"""Which prompt a local model gets: its GGUF's own chat template, the one the user names, or a raw
completion (tiny llama GGUFs written at test time, real llama.cpp)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gguf")

from specview.backends.local.backend import make_llama_backend
from specview.backends.local.model import ModelRunner
from specview.backends.local.prompt_format import (
    MAX_TEMPLATE_BYTES,
    TemplateOrigin,
    builtin_templates,
    prepare_prompt,
)
from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.replay import ReplayBackend
from specview.features.live.bench_command import bench_one
from specview.features.live.run_text import run_title
from specview.kernel.backend import Note
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from tests.support.gguf_factory import write_tiny_llama

PROMPT = "the cat sat"
# Hugging Face's ChatML template (Qwen's, without tools): llama.cpp recognises it as `chatml`.
CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] "
          "+ '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
          "{% endif %}")
CHATML_TEXT = "<|im_start|>user\nthe cat sat<|im_end|>\n<|im_start|>assistant\n"
TEMPLATES = {
    "chatml": CHATML,
    "bos_first": "{{ bos_token }}Q: {{ messages[0]['content'] }}\nA:",  # one no built-in matches
    "broken": "{% for message in messages %}{{ message['content'] }",
    "refuses": "{{ raise_exception('only system and user roles') }}",
    "huge": "{# " + "x" * (MAX_TEMPLATE_BYTES + 1) + " #}",
}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("templates")
    out = {"plain": write_tiny_llama(d / "plain.gguf")}
    for name, template in TEMPLATES.items():
        out[name] = write_tiny_llama(d / f"{name}.gguf", chat_template=template)
    return out


@pytest.fixture
def runner(request: pytest.FixtureRequest, models: dict[str, Path]) -> Iterator[ModelRunner]:
    model = ModelRunner(models[request.param], role="target", n_gpu_layers=0, n_threads=1)
    yield model
    model.close()


def text_of(model: ModelRunner, tokens: list[int]) -> str:
    """The text of `tokens` without the space an SPM tokenizer puts before the first word."""
    return b"".join(model.piece(t) for t in tokens).decode().removeprefix(" ")


@pytest.mark.parametrize("runner", ["plain"], indirect=True)
def test_a_gguf_without_a_template_gets_a_raw_completion(runner: ModelRunner) -> None:
    note, tokens = prepare_prompt(runner, PROMPT, None)
    assert note == Note("prompt_raw")
    bos = runner.lib.llama_vocab_bos(runner.vocab)
    assert tokens == runner.tokenize(PROMPT) and tokens[0] == bos and tokens.count(bos) == 1
    assert text_of(runner, tokens[1:]) == PROMPT  # nothing around the prompt


@pytest.mark.parametrize("runner", ["chatml"], indirect=True)
def test_a_gguf_with_a_template_gets_it_named_after_the_built_in_it_is(runner: ModelRunner) -> None:
    note, tokens = prepare_prompt(runner, PROMPT, None)
    assert note == Note("prompt_template_gguf", {"name": "chatml"})
    assert tokens[0] == runner.lib.llama_vocab_bos(runner.vocab)
    assert text_of(runner, tokens[1:]) == CHATML_TEXT


@pytest.mark.parametrize("runner", ["bos_first"], indirect=True)
def test_a_template_of_its_own_keeps_one_bos(runner: ModelRunner) -> None:
    note, tokens = prepare_prompt(runner, PROMPT, None)
    assert note == Note("prompt_template_gguf_unnamed")
    bos = runner.lib.llama_vocab_bos(runner.vocab)
    assert tokens[0] == bos and tokens.count(bos) == 1  # the template's BOS, not a second one
    assert text_of(runner, tokens[1:]) == "Q: the cat sat\nA:"


@pytest.mark.parametrize("runner", ["chatml"], indirect=True)
def test_none_is_a_raw_completion_even_with_a_template(runner: ModelRunner) -> None:
    assert prepare_prompt(runner, PROMPT, "none") == (Note("prompt_raw"), runner.tokenize(PROMPT))


@pytest.mark.parametrize("runner", ["plain"], indirect=True)
@pytest.mark.parametrize("source", [TemplateOrigin.OPTION, TemplateOrigin.CONFIG])
def test_a_named_built_in_applies_and_says_who_named_it(runner: ModelRunner, source: TemplateOrigin) -> None:
    note, tokens = prepare_prompt(runner, PROMPT, "chatml", source)
    assert note == Note(f"prompt_template_{source}", {"name": "chatml"})
    assert text_of(runner, tokens[1:]) == CHATML_TEXT


@pytest.mark.parametrize("runner", ["plain"], indirect=True)
@pytest.mark.parametrize(("source", "where"), [(TemplateOrigin.OPTION, "--chat-template chatm1:"),
                                               (TemplateOrigin.CONFIG, 'chat_template = "chatm1" in the config:')])
def test_an_unknown_name_is_one_error_with_the_known_names(runner: ModelRunner, source: TemplateOrigin,
                                                            where: str) -> None:
    with pytest.raises(BackendError) as err:
        prepare_prompt(runner, PROMPT, "chatm1", source)
    message = str(err.value)
    assert message.startswith(where) and "\n" not in message
    assert "chatml, " in message and "gemma, " in message and message.endswith("or none (a raw completion)")
    assert len(builtin_templates()) > 20 and all(name in message for name in builtin_templates())


@pytest.mark.parametrize(("runner", "reason"), [("broken", "TemplateSyntaxError"),
                                                ("refuses", "only system and user roles"),
                                                ("huge", f"more than {MAX_TEMPLATE_BYTES}")], indirect=["runner"])
def test_a_template_that_fails_is_one_clear_error(runner: ModelRunner, reason: str) -> None:
    with pytest.raises(BackendError) as err:
        prepare_prompt(runner, PROMPT, None)
    message = str(err.value)
    assert message.startswith(f"the chat template in {runner.name}") and reason in message
    assert "--chat-template none" in message and "\n" not in message
    assert prepare_prompt(runner, PROMPT, "none")[0] == Note("prompt_raw")  # the way out it names works


def test_the_status_line_json_and_recording_say_which(models: dict[str, Path], tmp_path: Path) -> None:
    spec = RunSpec(plain=True, prompt=PROMPT, max_tokens=4,
                   options=LlamaRunOptions(target=str(models["chatml"]), threads=1))
    backend = make_llama_backend(spec)
    try:
        assert backend.info.prompt_format == Note("prompt_template_gguf", {"name": "chatml"})
        assert run_title(backend.info, "en").endswith(" · chat template chatml (from the GGUF)")
        assert run_title(backend.info, "zh").endswith(" · 对话模板 chatml（来自 GGUF）")
    finally:
        backend.close()
    named = RunSpec(plain=True, prompt=PROMPT, max_tokens=4,
                    options=LlamaRunOptions(target=str(models["plain"]), threads=1, chat_template="chatml",
                                            chat_template_from="config"))
    record = tmp_path / "run.jsonl"
    stats = bench_one(named, None, str(record)).stats
    assert stats["prompt_format"] == {"id": "prompt_template_config", "values": {"name": "chatml"},
                                      "text": "chat template chatml (config)"}
    replayed = ReplayBackend(record).recorded_info
    assert replayed.prompt_format == Note("prompt_template_config", {"name": "chatml"})
    assert replayed.backend == "llama"
    raw = bench_one(RunSpec(plain=True, prompt=PROMPT, max_tokens=4,
                            options=LlamaRunOptions(target=str(models["plain"]), threads=1)), None)
    assert raw.stats["prompt_format"]["text"] == "raw completion"
