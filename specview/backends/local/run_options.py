"""What only a local llama.cpp run takes from the command line: the llama backend's options record.

RunSpec holds it as its `options` (kernel/runspec.py); `LlamaOptions.from_spec` (options.py) turns it,
with the shared settings, into what the engine decodes with. Light: the parser imports it for its options.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from specview.kernel.backend import BackendKind
from specview.kernel.runspec import BackendOptions, RunSpec, declare


@dataclass(frozen=True, slots=True)
class LlamaRunOptions(BackendOptions):
    """A local run's models and where it runs (each field declares its option and header place)."""

    backend: ClassVar[str] = BackendKind.LLAMA

    # the models as given (paths, `ngram`), beside the names the backend reads from them
    target: str | None = field(default=None, metadata=declare("models.target", "--target", selects=True))
    draft: str | None = field(default=None, metadata=declare("models.draft_source", "--draft"))
    demo: bool = field(default=False, metadata=declare("settings.demo", "--demo", selects=True))
    adaptive: bool = field(default=False, metadata=declare("settings.adaptive", "--adaptive"))
    gpu_layers: int | None = field(default=None, metadata=declare("settings.gpu_layers", "--gpu-layers"))
    threads: int | None = field(default=None, metadata=declare("settings.threads", "--threads"))
    # the chat template a local run applies (--chat-template / the config's chat_template):
    # a llama.cpp built-in name or "none"; None = the GGUF's own, or a raw completion without one
    chat_template: str | None = field(default=None, metadata=declare("settings.chat_template", "--chat-template",
                                                                     config=True))
    chat_template_from: str | None = None  # "option" or "config": who named it (the error says)
    # llama.cpp's repacked weights (--repack / --no-repack, the config's `repack`); None: as the host
    # needs (off where the CPU and the build use AMX: backends/local/cpu_features.py)
    repack: bool | None = field(default=None, metadata=declare("settings.repack", "--repack", config=True))


def llama_options(spec: RunSpec) -> LlamaRunOptions:
    """The spec's local-run options (the defaults for a spec of another backend)."""
    return spec.options if isinstance(spec.options, LlamaRunOptions) else LlamaRunOptions()
