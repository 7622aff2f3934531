"""How a prompt reaches a local model: the GGUF's own chat template, one the user names, or none.

A base model continues text: wrapped in turn markers it has never seen (Gemma 3 270M's GGUF has
no template) it echoes them and drifts. So a chat template applies only when the GGUF carries
one (`tokenizer.chat_template`) or the user names one (`--chat-template NAME`, the config's
`chat_template`); otherwise the prompt is tokenized as llama-server's `/completion` tokenizes a
raw prompt: the model's own special tokens (BOS when its metadata says add_bos_token), special
tokens written in the text parsed.

The GGUF's template is untrusted data: at most MAX_TEMPLATE_BYTES, rendered only by
llama-cpp-python's Jinja formatter (a jinja2 sandbox, as llama-cpp-python renders every GGUF's
template), and any failure is one BackendError. A named template is one of llama.cpp's built-in
ones, applied by llama.cpp itself (no Jinja).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from enum import StrEnum
from functools import cache
from typing import Any

from specview.backends.local.lib import llama_lib
from specview.backends.local.model import ModelRunner
from specview.boundary.text import sanitize
from specview.kernel.backend import Note
from specview.kernel.errors import BackendError
from specview.texts.catalog import Phrase

NO_TEMPLATE = "none"  # --chat-template none: a raw completion even when the GGUF has a template
MAX_TEMPLATE_BYTES = 64 * 1024  # real templates are a few KiB (tool-calling ones ~20 KiB)
REASON_CHARS = 200  # of a template's error as the message quotes it
# Messages that tell llama.cpp's built-in templates apart, to name the one a GGUF's template is.
PROBE = (("system", "s"), ("user", "u"), ("assistant", "a"), ("user", "v"))


class TemplateOrigin(StrEnum):
    """Where a chat template comes from: the catalog says `note.prompt_template_<source>`."""

    GGUF = "gguf"
    OPTION = "option"
    CONFIG = "config"


WHERE = {TemplateOrigin.OPTION: "backenderr.prompt.where_option",
         TemplateOrigin.CONFIG: "backenderr.prompt.where_config"}


@cache
def builtin_templates() -> tuple[str, ...]:
    """The names of llama.cpp's built-in chat templates (what --chat-template accepts)."""
    lib = llama_lib()
    n = int(lib.llama_chat_builtin_templates(None, 0))
    names = (ctypes.c_char_p * n)()
    lib.llama_chat_builtin_templates(names, n)
    return tuple(sorted(name.decode("ascii", "replace") for name in names if name))


def prepare_prompt(runner: ModelRunner, prompt: str, template: str | None,
                   source: TemplateOrigin = TemplateOrigin.OPTION) -> tuple[Note, list[int]]:
    """The prompt's tokens and how they were made (`note.<id>` in texts/prompts.*.toml).

    `template`: a built-in name, NO_TEMPLATE, or None (the GGUF's own template if it has one,
    else a raw completion); `source` says who named it.
    """
    if template is None:
        own = runner.lib.llama_model_chat_template(runner.model, None)
        if not own:
            return Note("prompt_raw"), runner.tokenize(prompt)
        return _own_template(runner, prompt, bytes(own))
    if template == NO_TEMPLATE:
        return Note("prompt_raw"), runner.tokenize(prompt)
    if template not in builtin_templates():
        where = Phrase(WHERE[source], name=sanitize(template, 64, one_line=True))
        raise BackendError("backenderr.prompt.unknown", where=where, known=", ".join(builtin_templates()),
                           none=NO_TEMPLATE)
    text = render_builtin(runner.lib, template.encode(), (("user", prompt),))
    if text is None:
        raise BackendError("backenderr.prompt.not_applied", template=template)
    return Note(f"prompt_template_{source}", {"name": template}), _templated_tokens(runner, text)


def render_builtin(lib: Any, template: bytes, messages: Sequence[tuple[str, str]]) -> str | None:
    """`messages` through llama.cpp's own chat formatting (a built-in name, or a template it
    recognises), ending with the assistant's turn; None when llama.cpp knows no such template."""
    encoded = [(role.encode(), content.encode("utf-8")) for role, content in messages]
    msgs = (lib.llama_chat_message * len(encoded))(*(lib.llama_chat_message(r, c) for r, c in encoded))
    size = len(template) + sum(len(c) for _, c in encoded) * 2 + 256
    for _ in range(2):
        buf = ctypes.create_string_buffer(size)
        n = lib.llama_chat_apply_template(template, msgs, len(encoded), True, buf, size)
        if n < 0:
            return None
        if n <= size:
            return buf.raw[:n].decode("utf-8", "replace")
        size = n + 1
    return None


def _own_template(runner: ModelRunner, prompt: str, template: bytes) -> tuple[Note, list[int]]:
    """The prompt in the GGUF's own template, rendered by llama-cpp-python's sandboxed Jinja."""
    fix = Phrase("backenderr.prompt.fix", none=NO_TEMPLATE)
    if len(template) > MAX_TEMPLATE_BYTES:
        raise BackendError("backenderr.prompt.too_long", name=runner.name, size=len(template),
                           most=MAX_TEMPLATE_BYTES, fix=fix)
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    vocab, lib = runner.vocab, runner.lib
    bos = runner.token_text(lib.llama_vocab_bos(vocab)).decode("utf-8", "replace")
    eos = runner.token_text(lib.llama_vocab_eos(vocab)).decode("utf-8", "replace")
    source = template.decode("utf-8", "replace")
    try:  # the template is the file's code: whatever it raises (syntax, sandbox, its own raise_exception)
        text = Jinja2ChatFormatter(source, eos_token=eos, bos_token=bos)(
            messages=[{"role": "user", "content": prompt}]).prompt
    except Exception as exc:  # noqa: BLE001 — one clear error for any failure of untrusted code
        reason = sanitize(f"{type(exc).__name__}: {exc}", REASON_CHARS, one_line=True)
        raise BackendError("backenderr.prompt.failed", name=runner.name, reason=reason, fix=fix) from None
    if not isinstance(text, str) or len(text) > len(prompt) + 4 * MAX_TEMPLATE_BYTES:
        raise BackendError("backenderr.prompt.implausible", name=runner.name, fix=fix)
    name = _builtin_name(lib, template)
    unnamed = Note("prompt_template_gguf_unnamed")
    note = Note(f"prompt_template_{TemplateOrigin.GGUF}", {"name": name}) if name else unnamed
    return note, _templated_tokens(runner, text)


def _builtin_name(lib: Any, template: bytes) -> str | None:
    """The built-in template llama.cpp takes this one for (the same text on PROBE), if any."""
    seen = render_builtin(lib, template, PROBE)
    if seen is None:
        return None
    return next((name for name in builtin_templates() if render_builtin(lib, name.encode(), PROBE) == seen), None)


def _templated_tokens(runner: ModelRunner, text: str) -> list[int]:
    """Tokens of a rendered template: a BOS the template wrote is dropped when the tokenizer adds
    one anyway (llama.cpp's chat code does the same), so the prompt starts with exactly one."""
    lib, vocab = runner.lib, runner.vocab
    if lib.llama_vocab_get_add_bos(vocab):
        bos = runner.token_text(lib.llama_vocab_bos(vocab)).decode("utf-8", "replace")
        if bos and text.startswith(bos):
            text = text[len(bos):]
    return runner.tokenize(text)
