"""Selectors name a run in one word: a preset id or a backend spec.

    qwen3.6-mtp                      simulator preset
    llama:TARGET.gguf+DRAFT.gguf     local llama.cpp with a draft model
    llama:TARGET.gguf+ngram          local llama.cpp with prompt lookup
    llama:TARGET.gguf                local llama.cpp, plain decoding
    url:http://host:8080/v1#model    OpenAI-compatible server (model optional)
    replay:FILE.jsonl                a recording
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.remote.options import RemoteOptions
from specview.backends.replay import ReplayOptions
from specview.kernel.errors import BackendError
from specview.kernel.runspec import BackendOptions, RunSpec

Opts = TypeVar("Opts", bound=BackendOptions)
GivenOptions = Callable[[type[BackendOptions]], BackendOptions]


def parse_selector(selector: str, base: RunSpec, given: GivenOptions | None = None) -> RunSpec:
    """The RunSpec a selector describes, with the shared settings of `base`; `given(record)`: the
    options of the selector's backend that the command line gives beside it (default: base's own,
    where base runs that backend)."""

    def options(record: type[Opts]) -> Opts:
        found = given(record) if given is not None else base.options
        return found if isinstance(found, record) else record()

    kind, sep, rest = selector.partition(":")
    if not sep or kind not in {"llama", "url", "replay"}:
        if "/" in selector or selector.endswith((".gguf", ".jsonl")):
            raise BackendError("backenderr.selector.neither", selector=selector)
        return replace(base.with_preset(selector), gamma=base.gamma, temperature=base.temperature)
    if not rest:
        raise BackendError("backenderr.selector.no_target", selector=selector, kind=kind)
    if kind == "llama":
        target, _, draft = rest.partition("+")
        llama = replace(options(LlamaRunOptions), target=target, draft=draft or None)
        return replace(base, preset=None, options=llama, plain=not draft).plain_reference()
    if kind == "url":
        url, _, model = rest.partition("#")
        remote = options(RemoteOptions)
        return replace(base, preset=None, options=replace(remote, url=url, model=model or remote.model))
    return replace(base, preset=None, options=ReplayOptions(recording=rest))
