"""Local llama.cpp backend: our own speculative loop, every drafted token accounted for.

Built from a RunSpec by `make_llama_backend`. The constructor validates and loads both
models (so bad input fails before any UI starts); `rounds` then runs the loop on the
Session's worker thread, which from then on is the only thread touching llama.cpp.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

from specview.backends.local.drafters import (
    AdaptiveGamma,
    ChainedDrafter,
    Drafter,
    GammaPolicy,
    ModelDrafter,
    NgramDrafter,
)
from specview.backends.local.engine import Engine, LoopTimes
from specview.backends.local.gamma_auto import AutoGamma
from specview.backends.local.lib import llama_lib, supports_gpu_offload
from specview.backends.local.log import LOG
from specview.backends.local.model import ModelRunner, check_gguf_file
from specview.backends.local.options import DEFAULT_MAX_TOKENS, DEFAULT_PROMPT, LlamaOptions
from specview.backends.local.prompt_format import prepare_prompt
from specview.backends.local.replay import VerifyBatch
from specview.backends.local.run_options import llama_options
from specview.backends.local.tree import TreeDrafter, TreeEngine
from specview.backends.local.vocab import check_vocab
from specview.kernel.backend import BackendInfo, BackendKind, Exact, Note
from specview.kernel.errors import BackendError
from specview.kernel.events import Q_TOP, Calibration, Round
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.runspec import RunSpec

ADAPTIVE_P_MIN = 0.5
CHAIN_PREFIX = "ngram,"  # --draft ngram,D.gguf: n-gram lookup first, the draft model where it finds nothing
EXACT: dict[str, bool] = {Exact.ACCEPTANCE: True, Exact.TAU: True, Exact.PER_POSITION: True,
                          Exact.TOKENS_PER_SECOND: True, Exact.DRAFT_COST: True}


def make_llama_backend(spec: RunSpec) -> LlamaBackend:
    """The llama backend a RunSpec asks for (`--demo` fills in model, draft and prompt)."""
    max_tokens = spec.max_tokens
    own = llama_options(spec)
    if own.demo:
        from specview.backends.local.demo import DEMO_MAX_TOKENS, demo_model_path, demo_prompt

        llama_lib()  # a missing llama-cpp-python is reported before the model package
        target = demo_model_path()
        prompt = spec.prompt or demo_prompt()
        max_tokens = max_tokens or DEMO_MAX_TOKENS
    else:
        if own.target is None:
            raise BackendError("backenderr.llama.no_target")
        target = Path(own.target).expanduser()
        prompt = spec.prompt or DEFAULT_PROMPT
    options = LlamaOptions.from_spec(spec, prompt=prompt, max_tokens=max_tokens or DEFAULT_MAX_TOKENS)
    return LlamaBackend(target, options)


class LlamaBackend:
    """Rounds from real decoding on llama.cpp: greedy exact, or Leviathan rejection sampling."""

    def __init__(self, target: Path, options: LlamaOptions | None = None) -> None:
        """Load the target (and the draft model the options name) and open their contexts; the
        options were checked when made (options.py)."""
        options = options or LlamaOptions()
        tree, gamma, max_tokens = options.tree, options.draft_gamma, options.max_tokens
        # `ngram,D.gguf` chains the n-gram lookup before the draft model (llama.cpp's spec-type chain)
        chained = options.draft.startswith(CHAIN_PREFIX)
        draft = options.draft.removeprefix(CHAIN_PREFIX)
        draft_path = None if options.plain or draft == "ngram" else Path(draft).expanduser()
        check_gguf_file(target, "target")
        if draft_path is not None:
            check_gguf_file(draft_path, "draft")
        layers = _gpu_layers(options.gpu_layers, supports_gpu_offload())
        self._lock = threading.Lock()
        self._closed = False
        self._runners: list[ModelRunner] = []
        mark = LOG.line_mark()
        try:
            self.target = self._load(target, "target", layers, options)
            if self.target.recurrent and not options.plain:
                raise BackendError("backenderr.llama.recurrent", name=target.name)
            drafter: Drafter | None = None
            if draft_path is not None:
                runner = self._load(draft_path, "draft", layers, options)
                check_vocab(self.target, runner)
                kind = ModelDrafter if tree is None else TreeDrafter
                p_min = ADAPTIVE_P_MIN if options.adaptive else 0.0
                drafter = kind(runner, self.target.n_vocab, p_min=p_min, keep_top=Q_TOP)
                if chained:
                    drafter = ChainedDrafter(NgramDrafter(self.target.n_vocab, *options.ngram), drafter)
            elif not options.plain:
                drafter = NgramDrafter(self.target.n_vocab, *options.ngram)
            # the GGUF's own template, the one named, or a raw completion (prompt_format.py)
            prompt_format, self.prompt_tokens = prepare_prompt(self.target, options.prompt, options.chat_template,
                                                               options.chat_template_from)
            if not self.prompt_tokens:
                raise BackendError("backenderr.llama.empty_prompt")
            controller: GammaPolicy | None = None
            if drafter is not None and options.gamma_auto:
                controller = AutoGamma(gamma)
            elif drafter is not None:
                controller = AdaptiveGamma(gamma) if options.adaptive else AdaptiveGamma(gamma, gamma, gamma)
            n_ctx = len(self.prompt_tokens) + max_tokens + (controller.high if controller else 0) + 8
            n_ctx += 0 if tree is None else tree.nodes
            if self.target.n_ctx_train and n_ctx > self.target.n_ctx_train:
                raise BackendError("backenderr.llama.no_fit", prompt=len(self.prompt_tokens), max_tokens=max_tokens,
                                   name=target.name, n_ctx=self.target.n_ctx_train)
            for runner in self._runners:
                runner.open_context(n_ctx, n_seq=tree.leaves if tree is not None and runner is self.target else 1)
        except BaseException:
            self.close()
            raise
        self.engine: Engine
        if isinstance(drafter, TreeDrafter) and tree is not None:
            self.engine = TreeEngine(self.target, drafter, self.prompt_tokens, shape=tree,
                                     temperature=options.temperature, max_tokens=max_tokens, seed=options.seed,
                                     calibrate_every=options.calibrate_every)
        else:
            self.engine = Engine(
                self.target, drafter, self.prompt_tokens, gamma=controller,
                temperature=options.temperature, max_tokens=max_tokens, seed=options.seed,
                calibrate_every=options.calibrate_every,
            )
        draft_name = None if drafter is None else drafter.name
        how = " γ auto" if options.gamma_auto else " adaptive γ" if options.adaptive else ""
        mode = "plain" if drafter is None else f"{draft_name}{how}"
        mode += "" if tree is None else f" tree {tree}"
        # a target shared with another backend (pool.py) logged its load then: its lines come first
        device, note = _device([*self.target.load_lines, *LOG.lines_since(mark)], layers, self.target)
        self._info = BackendInfo(
            backend=BackendKind.LLAMA,
            label=f"{target.name} · {mode} · {device}",
            gamma=None if drafter is None else gamma,
            temperature=options.temperature,
            model=target.name,
            draft=draft_name,
            seed=options.seed,
            exact=dict(EXACT),
            notes=(note, self.target.repack.note),
            prompt_format=prompt_format,
            prompt_tokens=len(self.prompt_tokens),
        )

    def _load(self, path: Path, role: str, layers: int, options: LlamaOptions) -> ModelRunner:
        runner = ModelRunner(path, role=role, n_gpu_layers=layers, n_threads=options.n_threads,
                             repack=options.repack)
        self._runners.append(runner)
        return runner

    @property
    def info(self) -> BackendInfo:
        return self._info

    @property
    def logs(self) -> list[str]:
        """Recent llama.cpp log lines (the full log is in LOG.path)."""
        return LOG.tail()

    @property
    def verify_batches(self) -> list[VerifyBatch]:
        """Every round's target forward so far (position and tokens), for `diff`'s replay."""
        return self.engine.batches

    @property
    def times(self) -> LoopTimes:
        """Wall time vs time inside llama_decode, over the rounds so far."""
        return self.engine.times

    def rounds(self, stop: threading.Event) -> Iterator[Round | Calibration | GammaChoice]:
        """Generate until --max-tokens, an end-of-generation token, `stop` or close().

        A Calibration (what k-token forwards and a plain step cost at the live context) comes
        first and again whenever the context has grown enough to change it; under `--gamma auto`
        each new choice of γ follows the item that caused it.
        """
        with self._lock:
            if isinstance(self.engine.gamma, AutoGamma):  # a restart decides afresh, and says so from round 0
                self.engine.gamma = AutoGamma()
            if self._closed or not self.engine.start(stop):
                return
        while not stop.is_set():
            with self._lock:
                if self._closed or self.engine.finished:
                    return
                item: Round | Calibration
                item = self.engine.calibrate() if self.engine.calibration_due else self.engine.step(stop)
                choices = self.engine.gamma.take() if self.engine.gamma is not None else []
            yield item
            yield from choices

    def close(self) -> None:
        """Free both models; waits for a decode in progress (idempotent, any thread)."""
        with self._lock:
            self._closed = True
            for runner in self._runners:
                runner.close()


def _gpu_layers(asked: int | None, offload: bool) -> int:
    if asked is None:
        return -1 if offload else 0
    if asked != 0 and not offload:
        raise BackendError("backenderr.llama.no_gpu", asked=asked)
    return asked


def _device(lines: list[str], layers: int, target: ModelRunner) -> tuple[str, Note]:
    """Where the model runs, from llama.cpp's load log: a short name for the label, and a note."""
    offloaded = None
    devices: list[str] = []
    for line in lines:
        m = re.search(r"offloaded (\d+)/(\d+) layers to GPU", line)
        if m:
            offloaded = f"{m.group(1)}/{m.group(2)}"
        m = re.search(r"using device (\S+) \((.*?)\)", line)
        if m:
            devices.append(f"{m.group(1)} ({m.group(2)})")
    if layers == 0 or not devices:
        return "CPU", Note("device_cpu", {"threads": str(target.n_threads)})
    named = ", ".join(dict.fromkeys(devices))
    if offloaded is None:
        return devices[0], Note("device_gpu_all", {"devices": named})
    return devices[0], Note("device_gpu", {"devices": named, "layers": offloaded})
