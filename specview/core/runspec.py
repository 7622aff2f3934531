"""RunSpec: everything needed to (re)build a backend, so the app can restart or switch."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

DEFAULT_KEY_ENV = "OPENAI_API_KEY"  # the variable that holds the API key unless one is named


@dataclass(frozen=True, slots=True)
class RunSpec:
    """A backend selection plus its settings. The API key rides along but is never written anywhere."""

    preset: str | None = None
    target: str | None = None
    draft: str | None = None
    url: str | None = None
    model: str | None = None
    replay: str | None = None
    prompt: str | None = None
    gamma: int | None = None
    temperature: float | None = None
    seed: int = 0
    lang: str | None = None
    speed: float = 1.0
    max_rounds: int | None = None
    max_tokens: int | None = None
    # llama (local llama.cpp)
    gpu_layers: int | None = None
    threads: int | None = None
    plain: bool = False
    adaptive: bool = False
    demo: bool = False
    # openai (remote server): the key, resolved once by the CLI; never shown, logged or recorded
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    server: str | None = None
    raw: bool = False
    read_timeout: float | None = None
    # seconds to connect, for a whole plain request, for a whole stream (None: the defaults)
    connect_timeout: float | None = None
    request_timeout: float | None = None
    stream_timeout: float | None = None
    # plain decoding's tokens/s on the remote side, the measured speedup's baseline:
    # "given" (--baseline-tps) or "paired" (measured by a plain run, bench --baseline-url)
    baseline_tps: float | None = None
    baseline_basis: str = "given"

    @property
    def kind(self) -> str:
        if self.target is not None or self.demo:
            return "llama"
        if self.url is not None:
            return "openai"
        if self.replay is not None:
            return "replay"
        return "sim"

    def with_preset(self, preset: str) -> RunSpec:
        """The same settings on another simulator preset (γ and T from the preset)."""
        return replace(self, preset=preset, gamma=None, temperature=None)
