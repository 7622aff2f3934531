"""RunSpec: everything needed to (re)build a backend, so the app can restart or switch.

A RunSpec is the record every backend shares (the preset, γ, T, the prompt…) and one record of the
options that only its backend has (`options`): a `BackendOptions` subclass each backend unit defines
beside it (backends/local/run_options.py, backends/remote/options.py, backends/replay.py; a plugin's,
in its package) and names in its BackendUnit, so the kernel knows no backend's options. The options
record's class says which backend runs the spec (`BackendOptions.backend`, the unit's id); the base
record, with no options of its own, is the simulator's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from specview.boundary.api_key import DEFAULT_KEY_ENV, ApiKey
from specview.kernel.backend import BackendKind

__all__ = ["DEFAULT_KEY_ENV", "BackendOptions", "RunSpec"]

# Each field (of RunSpec, or of a backend's options record) says once, in its `metadata`, where it
# comes from and where it goes:
# HEADER, its place in a recording's header (features/record/recorder.py): "settings.<name>",
# "models.<name>" or a top-level name; the header writes RunSpec's fields in the order declared
# here, then its options record's, and a field without a place is not recorded (the key never is).
# OPTION, the command-line option that sets it (cli/parser.py adds it, storing under the field's
# name; cli/runspec_args.py reads every one back); a field without one is set otherwise.
# CONFIG, true where the config file's key of the same name stands in when the option is not given.
# SELECTS, on an options record's field: giving its option selects that backend when `--backend`
# does not name one (`--target` a local run, `--url` a server).
HEADER = "specview.header"
OPTION = "specview.option"
CONFIG = "specview.config"
SELECTS = "specview.selects"


def declare(header: str | None = None, option: str | None = None, *, config: bool = False,
            selects: bool = False) -> dict[str, Any]:
    """A field's metadata: its place in the header, its option, whether the config stands in, whether
    it selects its backend (see above)."""
    found = {HEADER: header, OPTION: option, CONFIG: config or None, SELECTS: selects or None}
    return {key: value for key, value in found.items() if value is not None}


@dataclass(frozen=True, slots=True)
class BackendOptions:
    """What only one backend takes: the base of each backend's options record.

    A subclass is a frozen dataclass whose fields declare their HEADER, OPTION, CONFIG and SELECTS
    (`declare`), and whose `backend` is the id of the unit that runs it. This base has no fields:
    the simulator's (its preset, γ, T and seed are everyone's).
    """

    backend: ClassVar[str] = BackendKind.SIM


@dataclass(frozen=True, slots=True)
class RunSpec:
    """A backend selection plus its settings. The API key rides along but is never written anywhere."""

    # the header writes preset, γ, T and seed as the backend ran them (BackendInfo's: a preset's γ)
    preset: str | None = field(default=None, metadata=declare("settings.preset", "--preset", config=True))
    gamma: int | None = field(default=None, metadata=declare("settings.gamma", "--gamma"))
    # `--gamma auto` (cli/runspec_args.py turns the word into this): γ chosen while running; not in
    # the header of its own (the label says "γ auto", each round holds the γ it ran)
    gamma_auto: bool = False
    temperature: float | None = field(default=None,
                                      metadata=declare("settings.temperature", "--temperature"))
    seed: int = field(default=0, metadata=declare("settings.seed", "--seed"))
    lang: str | None = field(default=None, metadata=declare("settings.lang", "--lang"))
    speed: float = field(default=1.0, metadata=declare("settings.speed"))
    max_rounds: int | None = field(default=None, metadata=declare("settings.max_rounds"))
    max_tokens: int | None = field(default=None, metadata=declare("settings.max_tokens", "--max-tokens"))
    # plain decoding (`--no-spec`, a `llama:T` selector): nothing drafts; a backend that always drafts
    # runs as it does
    plain: bool = field(default=False, metadata=declare("settings.plain", "--no-spec"))
    # the key, resolved once by the CLI for whichever backend talks to a server; never shown, logged or
    # recorded (only the variable's name is), and sent only where `ApiKey.for_url` allows (boundary/api_key.py)
    api_key_env: str | None = field(default=None,
                                    metadata=declare("settings.api_key_env", "--api-key-env"))
    api_key: ApiKey | None = field(default=None, repr=False, compare=False)
    prompt: str | None = field(default=None, metadata=declare("prompt", "--prompt"))
    # a draft tree, "WxD" (kernel/tree_shape.py); a backend unit that drafts none says so (BackendUnit.no_tree)
    tree: str | None = field(default=None, metadata=declare("settings.tree", "--tree"))
    # what only the chosen backend takes; its class names the backend (see the module docstring)
    options: BackendOptions = field(default_factory=BackendOptions)

    @property
    def kind(self) -> str:
        """The id of the backend unit that runs this spec (a BackendKind for specview's own)."""
        backend = self.options.backend
        return BackendKind(backend) if backend in BackendKind.__members__.values() else backend

    def with_preset(self, preset: str) -> RunSpec:
        """The same settings on another simulator preset (γ and T from the preset)."""
        return replace(self, preset=preset, gamma=None, temperature=None)

    def plain_reference(self) -> RunSpec:
        """A plain run (`--no-spec`, a `llama:T` selector) without what only drafting has — a tree's
        shape, `--gamma auto` — which a plain run refuses; a drafting run as given. diff's reference
        and compare's plain side are made so beside a tree or auto run sharing the same options."""
        return replace(self, tree=None, gamma_auto=False) if self.plain else self

    def header_fields(self) -> dict[str, Any]:
        """The recorded fields as a header holds them, RunSpec's then its options record's, each in
        declaration order: {"settings": {...}, "models": {...}, "prompt": ...} (see HEADER)."""
        out: dict[str, Any] = {}
        for record in (self, self.options):
            for field_name, place in declared(HEADER, type(record)).items():
                section, _, name = place.rpartition(".")
                value = getattr(record, field_name)
                if section:
                    out.setdefault(section, {})[name] = value
                else:
                    out[name] = value
        out.setdefault("models", {})
        return out


def declared(key: str, record: type[Any] = RunSpec) -> dict[str, Any]:
    """Each field's declaration under `key` (HEADER, OPTION, CONFIG or SELECTS), by field name, in
    order, in RunSpec or in a backend's options record."""
    return {f.name: f.metadata[key] for f in fields(record) if key in f.metadata}


def option_of(name: str, record: type[Any] = RunSpec) -> str:
    """The command-line option that sets the field `name` (KeyError for a field no option sets)."""
    return str(declared(OPTION, record)[name])


def default_of(name: str, record: type[Any] = RunSpec) -> Any:
    """A field's default (what the command line says it is when the option is left out)."""
    return next(f.default for f in fields(record) if f.name == name)
