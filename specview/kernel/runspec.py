"""RunSpec: everything needed to (re)build a backend, so the app can restart or switch."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from specview.boundary.api_key import DEFAULT_KEY_ENV, ApiKey
from specview.kernel.backend import BackendKind
from specview.kernel.events import Basis

__all__ = ["DEFAULT_KEY_ENV", "RunSpec"]

# Each field says once, in its `metadata`, where it comes from and where it goes:
# HEADER, its place in a recording's header (features/record/recorder.py): "settings.<name>",
# "models.<name>" or a top-level name; the header writes the fields in the order declared here, and
# a field without a place is not recorded (the key never is).
# OPTION, the command-line option that sets it (cli/parser.py adds it, storing under the field's
# name; cli/runspec_args.py reads every one back); a field without one is set otherwise.
# CONFIG, true where the config file's key of the same name stands in when the option is not given.
HEADER = "specview.header"
OPTION = "specview.option"
CONFIG = "specview.config"


def _declared(header: str | None = None, option: str | None = None, *, config: bool = False) -> dict[str, Any]:
    found = {HEADER: header, OPTION: option, CONFIG: config or None}
    return {key: value for key, value in found.items() if value is not None}


@dataclass(frozen=True, slots=True)
class RunSpec:
    """A backend selection plus its settings. The API key rides along but is never written anywhere."""

    # the header writes preset, γ, T and seed as the backend ran them (BackendInfo's: a preset's γ)
    preset: str | None = field(default=None, metadata=_declared("settings.preset", "--preset", config=True))
    gamma: int | None = field(default=None, metadata=_declared("settings.gamma", "--gamma"))
    # `--gamma auto` (cli/runspec_args.py turns the word into this): γ chosen while running; not in
    # the header of its own (the label says "γ auto", each round holds the γ it ran)
    gamma_auto: bool = False
    temperature: float | None = field(default=None,
                                      metadata=_declared("settings.temperature", "--temperature"))
    seed: int = field(default=0, metadata=_declared("settings.seed", "--seed"))
    lang: str | None = field(default=None, metadata=_declared("settings.lang", "--lang"))
    speed: float = field(default=1.0, metadata=_declared("settings.speed"))
    max_rounds: int | None = field(default=None, metadata=_declared("settings.max_rounds"))
    max_tokens: int | None = field(default=None, metadata=_declared("settings.max_tokens", "--max-tokens"))
    # llama (local llama.cpp)
    gpu_layers: int | None = field(default=None, metadata=_declared("settings.gpu_layers", "--gpu-layers"))
    threads: int | None = field(default=None, metadata=_declared("settings.threads", "--threads"))
    plain: bool = field(default=False, metadata=_declared("settings.plain", "--no-spec"))
    adaptive: bool = field(default=False, metadata=_declared("settings.adaptive", "--adaptive"))
    demo: bool = field(default=False, metadata=_declared("settings.demo", "--demo"))
    # openai (remote server)
    url: str | None = field(default=None, metadata=_declared("settings.url", "--url"))
    server: str | None = field(default=None, metadata=_declared("settings.server", "--server"))
    raw: bool = field(default=False, metadata=_declared("settings.raw", "--raw"))
    # the key, resolved once by the CLI; never shown, logged or recorded (only the variable's name is),
    # and sent only where `ApiKey.for_url` allows (boundary/api_key.py)
    api_key_env: str | None = field(default=None,
                                    metadata=_declared("settings.api_key_env", "--api-key-env"))
    api_key: ApiKey | None = field(default=None, repr=False, compare=False)
    replay: str | None = field(default=None, metadata=_declared("settings.replay"))  # the recording replayed
    # the llama models as given (paths, `ngram`), beside the names the backend reads from them
    target: str | None = field(default=None, metadata=_declared("models.target", "--target"))
    draft: str | None = field(default=None, metadata=_declared("models.draft_source", "--draft"))
    # recorded as the model the server named (BackendInfo.model)
    model: str | None = field(default=None, metadata=_declared(option="--model"))
    prompt: str | None = field(default=None, metadata=_declared("prompt", "--prompt"))
    # the chat template a local run applies (--chat-template / the config's chat_template):
    # a llama.cpp built-in name or "none"; None = the GGUF's own, or a raw completion without one
    chat_template: str | None = field(default=None, metadata=_declared("settings.chat_template", "--chat-template",
                                                                       config=True))
    chat_template_from: str | None = None  # "option" or "config": who named it (the error says)
    # a local draft tree, "WxD" (kernel/tree_shape.py); recorded after every setting recorded before it
    tree: str | None = field(default=None, metadata=_declared("settings.tree", "--tree"))  # "WxD" (tree_shape.py)
    # llama.cpp's repacked weights (--repack / --no-repack, the config's `repack`), recorded after the
    # tree; None: as the host needs (off where the CPU and the build use AMX: backends/local/cpu_features.py)
    repack: bool | None = field(default=None, metadata=_declared("settings.repack", "--repack", config=True))
    # seconds to wait for a stream's next event, to connect, for a whole plain request, for a whole
    # stream (None: the defaults)
    read_timeout: float | None = field(default=None, metadata=_declared(option="--read-timeout", config=True))
    connect_timeout: float | None = field(default=None,
                                          metadata=_declared(option="--connect-timeout", config=True))
    request_timeout: float | None = field(default=None,
                                          metadata=_declared(option="--request-timeout", config=True))
    stream_timeout: float | None = field(default=None, metadata=_declared(option="--stream-timeout", config=True))
    # plain decoding's tokens/s on the remote side, the measured speedup's baseline:
    # given (--baseline-tps) or paired (measured by a plain run, bench --baseline-url)
    baseline_tps: float | None = field(default=None, metadata=_declared(option="--baseline-tps"))
    baseline_basis: Basis = Basis.GIVEN

    @property
    def kind(self) -> BackendKind:
        if self.target is not None or self.demo:
            return BackendKind.LLAMA
        if self.url is not None:
            return BackendKind.REMOTE
        if self.replay is not None:
            return BackendKind.REPLAY
        return BackendKind.SIM

    def with_preset(self, preset: str) -> RunSpec:
        """The same settings on another simulator preset (γ and T from the preset)."""
        return replace(self, preset=preset, gamma=None, temperature=None)

    def plain_reference(self) -> RunSpec:
        """A plain run (`--no-spec`, a `llama:T` selector) without what only drafting has — a tree's
        shape, `--gamma auto` — which a plain run refuses; a drafting run as given. diff's reference
        and compare's plain side are made so beside a tree or auto run sharing the same options."""
        return replace(self, tree=None, gamma_auto=False) if self.plain else self

    def header_fields(self) -> dict[str, Any]:
        """The recorded fields as a header holds them, in declaration order:
        {"settings": {...}, "models": {...}, "prompt": ...} (see HEADER)."""
        out: dict[str, Any] = {}
        for field_name, place in declared(HEADER).items():
            section, _, name = place.rpartition(".")
            value = getattr(self, field_name)
            if section:
                out.setdefault(section, {})[name] = value
            else:
                out[name] = value
        return out


def declared(key: str) -> dict[str, Any]:
    """Each field's declaration under `key` (HEADER, OPTION or CONFIG), by field name, in order."""
    return {f.name: f.metadata[key] for f in fields(RunSpec) if key in f.metadata}


def option_of(name: str) -> str:
    """The command-line option that sets the field `name` (KeyError for a field no option sets)."""
    return str(declared(OPTION)[name])


def default_of(name: str) -> Any:
    """A field's default (what the command line says it is when the option is left out)."""
    return next(f.default for f in fields(RunSpec) if f.name == name)
