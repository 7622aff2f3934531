"""The RunSpec the command line describes: selector options, config defaults, the API key."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING

from specview.boundary.api_key import DEFAULT_KEY_ENV, ApiKey, resolve_api_key, withheld_from
from specview.boundary.secrets import add_url_secrets
from specview.kernel.runspec import RunSpec

if TYPE_CHECKING:
    from specview.catalog.config import Config


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
    urls = [spec.url for spec in specs if spec.kind == "openai"]
    key = next((spec.api_key for spec in specs if spec.api_key is not None), None)
    return withheld_key_notice(key, [*urls, *extra_urls], lang)


def warn_notice(notice: str | None) -> None:
    """A headless command's notice: one line on stderr, before any request (nothing when None)."""
    if notice:
        from specview.cli.errors import warn

        warn(notice)


def spec_from_args(args: argparse.Namespace, *, speed: float = 1.0, max_rounds: int | None = None,
                   config: Config | None = None) -> RunSpec:
    """The RunSpec the selector options describe (config-file defaults fill what is not given)."""
    from specview.catalog.config import load_config
    from specview.cli.timeout_args import chosen

    config = config or load_config()
    add_url_secrets(args.url)  # before anything could quote the URL
    key, key_env = api_key_of(args, config)
    template, template_from = _chat_template(args, config)
    return RunSpec(
        preset=args.preset or config.preset,
        prompt=args.prompt,
        gamma=args.gamma,
        temperature=args.temperature,
        seed=args.seed,
        lang=args.lang,
        speed=speed,
        max_rounds=max_rounds,
        target=args.target,
        draft=args.draft,
        demo=args.demo,
        gpu_layers=args.gpu_layers,
        threads=args.threads,
        plain=args.plain,
        adaptive=args.adaptive,
        max_tokens=args.max_tokens,
        url=args.url,
        model=args.model,
        api_key_env=key_env,
        api_key=key,
        server=None if args.server in (None, "auto") else args.server,
        raw=args.raw,
        read_timeout=chosen(args, config, "read_timeout"),
        connect_timeout=chosen(args, config, "connect_timeout"),
        request_timeout=chosen(args, config, "request_timeout"),
        stream_timeout=chosen(args, config, "stream_timeout"),
        baseline_tps=args.baseline_tps,
        chat_template=template,
        chat_template_from=template_from,
    )


def _chat_template(args: argparse.Namespace, config: Config) -> tuple[str | None, str | None]:
    """--chat-template, else the config's chat_template, and which of them named it ("option",
    "config"); (None, None) leaves it to the GGUF."""
    given = getattr(args, "chat_template", None)
    if given:
        return given, "option"
    if config.chat_template:
        return config.chat_template, "config"
    return None, None


def specs_from_args(args: argparse.Namespace, *, speed: float, max_rounds: int | None,
                    config: Config | None = None) -> list[RunSpec]:
    """One RunSpec per positional selector, or the single one the options describe."""
    from specview.backends.selector import parse_selector

    base = spec_from_args(args, speed=speed, max_rounds=max_rounds, config=config)
    selectors = getattr(args, "selectors", None) or []
    for selector in selectors:
        if selector.startswith("url:"):
            add_url_secrets(selector[len("url:"):].partition("#")[0])
    return [parse_selector(s, base) for s in selectors] or [base]


