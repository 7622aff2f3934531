"""The RunSpec the command line describes: selector options, config defaults, the API key."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from specview.core.runspec import DEFAULT_KEY_ENV, RunSpec
from specview.core.secrets import add_secret, add_url_secrets

if TYPE_CHECKING:
    from specview.core.config import Config


def resolve_api_key(env_name: str | None, config: Config) -> str | None:
    """The key from the variable `--api-key-env` (or the config's `api_key_env`) names, else
    OPENAI_API_KEY, else the config file's `api_key`; None when none is set."""
    value = os.environ.get(env_name or DEFAULT_KEY_ENV, "").strip()
    key = value or config.api_key or None
    add_secret(key)  # masked wherever a server might echo it
    return key


def spec_from_args(args: argparse.Namespace, *, speed: float = 1.0, max_rounds: int | None = None,
                   config: Config | None = None) -> RunSpec:
    """The RunSpec the selector options describe (config-file defaults fill what is not given)."""
    from specview.cli.timeout_args import chosen
    from specview.core.config import load_config

    config = config or load_config()
    add_url_secrets(args.url)  # before anything could quote the URL
    key_env = args.api_key_env or config.api_key_env
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
        api_key=resolve_api_key(key_env, config),
        server=None if args.server in (None, "auto") else args.server,
        raw=args.raw,
        read_timeout=chosen(args, config, "read_timeout"),
        connect_timeout=chosen(args, config, "connect_timeout"),
        request_timeout=chosen(args, config, "request_timeout"),
        stream_timeout=chosen(args, config, "stream_timeout"),
        baseline_tps=args.baseline_tps,
    )


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


