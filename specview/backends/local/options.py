"""What a local run decodes and how: everything LlamaBackend needs beside the target model's path.

Checked when made, so that a contradiction (`--gamma auto` with a fixed γ, a tree on the n-gram
drafter) or a value out of range is a BackendError before any model loads. `from_spec` reads a
RunSpec (what `make_llama_backend` builds from the command line); tests and benchmarks make one
directly with the few fields they change.
"""

from __future__ import annotations

from dataclasses import dataclass

from specview.backends.local.engine import RECALIBRATE_ROUNDS
from specview.backends.local.gamma_auto import START_GAMMA
from specview.backends.local.prompt_format import TemplateOrigin
from specview.backends.local.run_options import llama_options
from specview.backends.local.tree import check_tree, tree_of
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from specview.kernel.theory import MAX_GAMMA
from specview.kernel.tree_shape import TreeShape

DEFAULT_GAMMA = 4
DEFAULT_MAX_TOKENS = 256
DEFAULT_PROMPT = "Once upon a time"


@dataclass(frozen=True, slots=True)
class LlamaOptions:
    """A local run's options (see the module docstring)."""

    # what drafts: "ngram", a draft GGUF's path, or "ngram,<path>" (the n-gram lookup first, the model
    # where it finds nothing); `plain`: nothing (plain decoding)
    draft: str = "ngram"
    plain: bool = False
    gamma: int | None = None  # None: DEFAULT_GAMMA (START_GAMMA under `gamma_auto`); a tree drafts its depth
    gamma_auto: bool = False  # `--gamma auto`: γ chosen from the run's own costs
    adaptive: bool = False  # γ follows the draft's confidence
    tree: TreeShape | None = None  # a draft tree (`--tree WxD`) instead of a chain
    ngram: tuple[int, int] = (3, 2)  # the n-gram drafter's longest and shortest match
    calibrate_every: int | None = RECALIBRATE_ROUNDS  # rounds between calibrations at most (None: once)
    # what is decoded
    prompt: str = DEFAULT_PROMPT
    chat_template: str | None = None
    chat_template_from: TemplateOrigin = TemplateOrigin.OPTION
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float = 0.0
    seed: int = 0
    # where it runs
    gpu_layers: int | None = None  # None: all on a GPU where the build offloads, else none
    n_threads: int | None = None
    repack: bool | None = None  # None: as the host needs (backends/local/cpu_features.py)

    def __post_init__(self) -> None:
        if self.gamma_auto:
            _check_auto(self.gamma, self.plain, self.adaptive)
            if self.tree is not None:
                raise BackendError("backenderr.llama.auto_tree")
        check_tree(self.tree, self.draft, plain=self.plain, adaptive=self.adaptive)
        if not 1 <= self.draft_gamma <= MAX_GAMMA:
            raise BackendError("backenderr.llama.gamma", most=MAX_GAMMA, gamma=self.draft_gamma)
        if self.temperature < 0:
            raise BackendError("backenderr.llama.temperature", temperature=self.temperature)
        if self.max_tokens < 1:
            raise BackendError("backenderr.llama.max_tokens", max_tokens=self.max_tokens)

    @property
    def draft_gamma(self) -> int:
        """The γ drafting starts at: the one asked for, a tree's depth, or the default."""
        if self.tree is not None:
            return self.tree.depth
        if self.gamma is not None:
            return self.gamma
        return START_GAMMA if self.gamma_auto else DEFAULT_GAMMA

    @classmethod
    def from_spec(cls, spec: RunSpec, *, prompt: str, max_tokens: int) -> LlamaOptions:
        """The options a RunSpec asks for, with the prompt and token budget its caller settled."""
        own = llama_options(spec)
        return cls(
            draft=own.draft or "ngram",
            plain=spec.plain,
            gamma=spec.gamma,
            gamma_auto=spec.gamma_auto,
            adaptive=own.adaptive,
            tree=tree_of(spec.tree),
            prompt=prompt,
            chat_template=own.chat_template,
            chat_template_from=TemplateOrigin(own.chat_template_from or TemplateOrigin.OPTION),
            max_tokens=max_tokens,
            temperature=spec.temperature or 0.0,
            seed=spec.seed,
            gpu_layers=own.gpu_layers,
            n_threads=own.threads,
            repack=own.repack,
        )


def _check_auto(gamma: int | None, plain: bool, adaptive: bool) -> None:
    """`--gamma auto` chooses γ itself: a fixed γ, no drafting or the adaptive rule contradict it."""
    if gamma is not None:
        raise BackendError("backenderr.llama.auto_fixed", gamma=gamma)
    if plain:
        raise BackendError("backenderr.llama.auto_plain")
    if adaptive:
        raise BackendError("backenderr.llama.auto_adaptive")
