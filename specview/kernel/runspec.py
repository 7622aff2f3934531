"""RunSpec: everything needed to (re)build a backend, so the app can restart or switch."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from specview.boundary.api_key import DEFAULT_KEY_ENV, ApiKey
from specview.kernel.backend import BackendKind
from specview.kernel.events import Basis

__all__ = ["DEFAULT_KEY_ENV", "RunSpec"]

# A field's place in a recording's header (core/recorder.py), in `metadata`: "settings.<name>",
# "models.<name>" or a top-level name. The header writes the fields in the order declared here;
# a field without a place is not recorded (the key never is).
HEADER = "specview.header"


def _recorded(place: str) -> dict[str, str]:
    return {HEADER: place}


@dataclass(frozen=True, slots=True)
class RunSpec:
    """A backend selection plus its settings. The API key rides along but is never written anywhere."""

    # the header writes preset, γ, T and seed as the backend ran them (BackendInfo's: a preset's γ)
    preset: str | None = field(default=None, metadata=_recorded("settings.preset"))
    gamma: int | None = field(default=None, metadata=_recorded("settings.gamma"))
    temperature: float | None = field(default=None, metadata=_recorded("settings.temperature"))
    seed: int = field(default=0, metadata=_recorded("settings.seed"))
    lang: str | None = field(default=None, metadata=_recorded("settings.lang"))
    speed: float = field(default=1.0, metadata=_recorded("settings.speed"))
    max_rounds: int | None = field(default=None, metadata=_recorded("settings.max_rounds"))
    max_tokens: int | None = field(default=None, metadata=_recorded("settings.max_tokens"))
    # llama (local llama.cpp)
    gpu_layers: int | None = field(default=None, metadata=_recorded("settings.gpu_layers"))
    threads: int | None = field(default=None, metadata=_recorded("settings.threads"))
    plain: bool = field(default=False, metadata=_recorded("settings.plain"))
    adaptive: bool = field(default=False, metadata=_recorded("settings.adaptive"))
    demo: bool = field(default=False, metadata=_recorded("settings.demo"))
    # openai (remote server)
    url: str | None = field(default=None, metadata=_recorded("settings.url"))
    server: str | None = field(default=None, metadata=_recorded("settings.server"))
    raw: bool = field(default=False, metadata=_recorded("settings.raw"))
    # the key, resolved once by the CLI; never shown, logged or recorded (only the variable's name is),
    # and sent only where `ApiKey.for_url` allows (core/api_key.py)
    api_key_env: str | None = field(default=None, metadata=_recorded("settings.api_key_env"))
    api_key: ApiKey | None = field(default=None, repr=False, compare=False)
    replay: str | None = field(default=None, metadata=_recorded("settings.replay"))  # the recording replayed
    # the llama models as given (paths, `ngram`), beside the names the backend reads from them
    target: str | None = field(default=None, metadata=_recorded("models.target"))
    draft: str | None = field(default=None, metadata=_recorded("models.draft_source"))
    model: str | None = None  # recorded as the model the server named (BackendInfo.model)
    prompt: str | None = field(default=None, metadata=_recorded("prompt"))
    # the chat template a local run applies (--chat-template / the config's chat_template):
    # a llama.cpp built-in name or "none"; None = the GGUF's own, or a raw completion without one
    chat_template: str | None = field(default=None, metadata=_recorded("settings.chat_template"))
    chat_template_from: str | None = None  # "option" or "config": who named it (the error says)
    read_timeout: float | None = None
    # seconds to connect, for a whole plain request, for a whole stream (None: the defaults)
    connect_timeout: float | None = None
    request_timeout: float | None = None
    stream_timeout: float | None = None
    # plain decoding's tokens/s on the remote side, the measured speedup's baseline:
    # given (--baseline-tps) or paired (measured by a plain run, bench --baseline-url)
    baseline_tps: float | None = None
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

    def header_fields(self) -> dict[str, Any]:
        """The recorded fields as a header holds them, in declaration order:
        {"settings": {...}, "models": {...}, "prompt": ...} (see HEADER)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            place = f.metadata.get(HEADER)
            if place is None:
                continue
            section, _, name = place.rpartition(".")
            value = getattr(self, f.name)
            if section:
                out.setdefault(section, {})[name] = value
            else:
                out[name] = value
        return out


def default_of(name: str) -> Any:
    """A field's default (what the command line says it is when the option is left out)."""
    return next(f.default for f in fields(RunSpec) if f.name == name)
