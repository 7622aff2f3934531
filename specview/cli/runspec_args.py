"""The RunSpec the command line describes: selector options, config defaults, the API key."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import fields
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from specview.boundary.api_key import DEFAULT_KEY_ENV, ApiKey, resolve_api_key, withheld_from
from specview.boundary.secrets import add_url_secrets
from specview.cli.plugin_options import is_plugin, plugin_dest
from specview.kernel.backend import BackendKind
from specview.kernel.runspec import CONFIG, OPTION, SELECTS, BackendOptions, RunSpec, declared

if TYPE_CHECKING:
    from specview.backends.unit import BackendUnit
    from specview.catalog.config import Config

Opts = TypeVar("Opts", bound=BackendOptions)


def api_key_of(args: argparse.Namespace, config: Config) -> tuple[ApiKey | None, str | None]:
    """The key the options and config give, and the variable the user named (None: none named)."""
    key_env = getattr(args, "api_key_env", None) or config.api_key_env
    return resolve_api_key(key_env, config.api_key), key_env


def withheld_key_notice(key: ApiKey | None, urls: Iterable[str | None], lang: str) -> str | None:
    """The one line saying OPENAI_API_KEY is set but not sent to these servers, and how to send it;
    None when there is nothing to say. Shown once per command, before any request."""
    from specview.boundary.secrets import public_url
    from specview.texts.catalog import fill

    withheld = withheld_from(key, urls)
    if not withheld:
        return None
    servers = ", ".join(public_url(url) or "" for url in withheld)
    return fill("auth.ambient_withheld", lang, env=DEFAULT_KEY_ENV, servers=servers)


def specs_key_notice(specs: Iterable[RunSpec], lang: str, extra_urls: Iterable[str | None] = ()) -> str | None:
    """`withheld_key_notice` for the servers these runs (and `extra_urls`) talk to; they share one key."""
    specs = list(specs)
    from specview.backends.remote.options import remote_options

    urls = [remote_options(spec).url for spec in specs if spec.kind is BackendKind.REMOTE]
    key = next((spec.api_key for spec in specs if spec.api_key is not None), None)
    return withheld_key_notice(key, [*urls, *extra_urls], lang)


def warn_notice(notice: str | None) -> None:
    """A headless command's notice: one line on stderr, before any request (nothing when None)."""
    if notice:
        from specview.cli.errors import warn

        warn(notice)


BACKEND_OPTION = "--backend"  # the backend by name (a unit's id: backends/unit.py), stored as `backend`


def options_given(args: argparse.Namespace, config: Config, record: type[Any] = RunSpec) -> dict[str, Any]:
    """Every field of RunSpec (or of a backend's options record) its command-line option sets
    (kernel/runspec.py's OPTION), or the config file's key of the same name where the option is not
    given and the field says so (CONFIG); fields neither gives are left out, to keep their defaults.
    A plugin backend's options are stored under `<id>.<field>` (cli/plugin_options.py)."""
    backend = getattr(record, "backend", None)
    plugin = backend is not None and is_plugin(backend)
    stands_in = declared(CONFIG, record)
    found: dict[str, Any] = {}
    for name in declared(OPTION, record):
        value = getattr(args, plugin_dest(str(backend), name) if plugin else name, None)
        if value is None and stands_in.get(name):
            value = getattr(config, name)
        if value is not None:
            found[name] = value
    return found


def chosen_unit(args: argparse.Namespace) -> BackendUnit:
    """The backend `--backend NAME` names (BackendError naming every one when none has that id), else the
    first whose selecting option is given (`--target`, `--demo`, `--url`: its record's SELECTS), else
    the simulator."""
    from specview.backends.factory import BACKENDS, backend_named
    from specview.plugins.surface import units

    name = getattr(args, "backend", None)
    if name is not None:
        return backend_named(name)
    for unit in units(BACKENDS):
        if any(getattr(args, field, None) for field in declared(SELECTS, unit.options)):
            return unit
    return backend_named(BackendKind.SIM)


def record_from_args(args: argparse.Namespace, config: Config, record: type[Opts]) -> Opts:
    """A backend's options record as the command line (and the config) gives it."""
    given = options_given(args, config, record)
    names = {field.name for field in fields(record)}
    if "chat_template_from" in names:  # who named the chat template: the error says
        given["chat_template_from"] = _chat_template_from(args, config)
    if given.get("server") == "auto":  # `--server auto` leaves the kind to detection
        del given["server"]
    return record(**given)


def spec_from_args(args: argparse.Namespace, *, speed: float = 1.0, max_rounds: int | None = None,
                   config: Config | None = None) -> RunSpec:
    """The RunSpec the selector options describe (config-file defaults fill what is not given):
    the shared settings, and the options record of the backend they choose (`chosen_unit`)."""
    from specview.catalog.config import load_config

    config = config or load_config()
    add_url_secrets(getattr(args, "url", None))  # before anything could quote the URL
    key, key_env = api_key_of(args, config)
    given = options_given(args, config)
    # what the command line resolves rather than copies: the key (its variable's name, then its value)
    given.update(api_key_env=key_env, api_key=key, speed=speed, max_rounds=max_rounds)
    if given.get("gamma") == "auto":  # `--gamma auto`: no fixed γ, the run chooses (kernel/gamma_choice.py)
        given.update(gamma=None, gamma_auto=True)
    return RunSpec(**given, options=record_from_args(args, config, chosen_unit(args).options))


def _chat_template_from(args: argparse.Namespace, config: Config) -> str | None:
    """Who named the chat template (`options_given` took --chat-template, else the config's):
    "option", "config", or None when neither did (the GGUF decides)."""
    if getattr(args, "chat_template", None):
        return "option"
    return "config" if config.chat_template else None


def specs_from_args(args: argparse.Namespace, *, speed: float, max_rounds: int | None,
                    config: Config | None = None) -> list[RunSpec]:
    """One RunSpec per positional selector, or the single one the options describe."""
    from specview.backends.selector import parse_selector
    from specview.catalog.config import load_config

    config = config or load_config()
    base = spec_from_args(args, speed=speed, max_rounds=max_rounds, config=config)
    selectors = getattr(args, "selectors", None) or []
    for selector in selectors:
        if selector.startswith("url:"):
            add_url_secrets(selector[len("url:"):].partition("#")[0])
    given = partial(record_from_args, args, config)
    return [parse_selector(s, base, given) for s in selectors] or [base]


