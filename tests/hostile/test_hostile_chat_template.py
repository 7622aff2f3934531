"""A GGUF's chat template is code from someone else: whatever it raises, renders or allocates, the
run is one clean line (or a clean run), in bounded time and memory (tiny llama GGUFs, the real CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")

from tests.support.gguf_factory import write_tiny_llama
from tests.support.hostile_checks import HOSTILE, assert_terminal_clean, json_lines, one_error_line
from tests.support.limited_run import base_env, run_cli

pytestmark = pytest.mark.llama

MAX_LINE = 1000  # characters of the one error line: the template's own words are cut short
# HOSTILE as a Jinja string literal's body: the template's text is plain ASCII, what it renders is not
ESCAPED = HOSTILE.encode("unicode_escape").decode("ascii").replace("'", "\\'")


def bench(tmp_path: Path, template: str, *flags: str) -> tuple[int, bytes, str]:
    model = write_tiny_llama(tmp_path / "model.gguf", chat_template=template)
    run = run_cli(["bench", "--target", str(model), "--no-spec", "--max-tokens", "4", "--threads", "1", "--json",
                   *flags], base_env(tmp_path))
    assert not run.timed_out
    return run.returncode, run.stdout, run.err


@pytest.mark.parametrize("template", [
    "{{ raise_exception('" + ESCAPED * 100 + "') }}",  # a long message full of escapes
    "{% for m in messages %}{{ m.content }" + HOSTILE,  # a syntax error in a template full of escapes
    "{{ 'x' * 10 ** 12 }}",  # a terabyte of output
    "{{ ().__class__.__base__.__subclasses__() }}",  # out of the sandbox
], ids=["raises", "syntax", "terabyte", "escape"])
def test_a_failing_template_is_one_clean_line(tmp_path: Path, template: str) -> None:
    code, stdout, err = bench(tmp_path, template)
    line = one_error_line(err)
    assert code == 2 and "the chat template in model.gguf failed" in line and len(line) < MAX_LINE
    assert ("ValueError" in line) == ("raise_exception" in template)  # its own error, not a slip of ours
    assert line.endswith("run with --chat-template none (a raw completion) or --chat-template NAME")
    assert_terminal_clean(stdout)
    code, stdout, err = bench(tmp_path, template, "--chat-template", "none")  # the way out it names
    assert code == 0 and json_lines(stdout)[0]["prompt_format"] == {
        "id": "prompt_raw", "values": {}, "text": "raw completion"}


def test_escapes_a_template_writes_into_the_prompt_stay_off_the_terminal(tmp_path: Path) -> None:
    code, stdout, err = bench(tmp_path, "{{ '" + ESCAPED + "' }}{{ messages[0]['content'] }}")
    assert code == 0, err
    assert_terminal_clean(stdout)
    assert_terminal_clean(err.encode())
    assert json_lines(stdout)[0]["prompt_format"]["id"] == "prompt_template_gguf_unnamed"  # type: ignore[index]
