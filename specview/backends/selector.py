"""Selectors name a run in one word: a preset id or a backend spec.

    qwen3.6-mtp                      simulator preset
    llama:TARGET.gguf+DRAFT.gguf     local llama.cpp with a draft model
    llama:TARGET.gguf+ngram          local llama.cpp with prompt lookup
    llama:TARGET.gguf                local llama.cpp, plain decoding
    url:http://host:8080/v1#model    OpenAI-compatible server (model optional)
    replay:FILE.jsonl                a recording
"""

from __future__ import annotations

from dataclasses import replace

from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec


def parse_selector(selector: str, base: RunSpec) -> RunSpec:
    """The RunSpec a selector describes, with the shared settings of `base`."""
    kind, sep, rest = selector.partition(":")
    if not sep or kind not in {"llama", "url", "replay"}:
        if "/" in selector or selector.endswith((".gguf", ".jsonl")):
            raise BackendError("backenderr.selector.neither", selector=selector)
        return replace(base.with_preset(selector), gamma=base.gamma, temperature=base.temperature)
    if not rest:
        raise BackendError("backenderr.selector.no_target", selector=selector, kind=kind)
    if kind == "llama":
        target, _, draft = rest.partition("+")
        return replace(base, preset=None, target=target, draft=draft or None, plain=not draft).plain_reference()
    if kind == "url":
        url, _, model = rest.partition("#")
        return replace(base, preset=None, url=url, model=model or base.model)
    return replace(base, preset=None, replay=rest)
