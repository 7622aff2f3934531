"""`specview doctor URL…`: is speculation on, does it pay, which γ, and why the numbers disagree.

Headless. Each server is observed for `--window` seconds through what it exposes (/metrics
through the watch's sources, llama-server's /props and /slots, /v1/models); no request of ours
is sent unless `--probe N` asks (N short prompts, each with a deadline). Each finding comes with
its evidence, a confidence and the exact flag to change for that engine. `--json` prints the
stable schema (finding.py); `--check` exits 1 when any finding is a problem. A server that
cannot be read at all is one line and exit 2, as every command.

The servers: the URLs, then those of `--targets FILE` (the file `watch --targets` reads, by its
reader), or `--prometheus URL` (with `--match` and the credential flags, as `watch --prometheus`
takes them): every instance Prometheus scrapes, over the last `--window` s it holds
(through_prometheus.py), findings per instance; /props, /slots and probes are not available there.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from specview.cli.argtypes import Parser, SubParsers, float_in, int_in, lang_option, server_option
from specview.cli.help_format import Help
from specview.cli.timeout_args import timeout_options
from specview.features.watch.command.fleet_args import add_prometheus_options

if TYPE_CHECKING:
    from specview.backends.remote.timeouts import Timeouts
    from specview.features.doctor.observe import Observation

DEFAULT_WINDOW_S = 10.0
LOCAL_TOKENS, MAX_LOCAL_TOKENS = 64, 2048  # a local run's tokens (local.py's, kept here for a light parser)


def register(sub: SubParsers, selectors: Parser) -> None:
    from specview.features.doctor.observe import MAX_PROBES, MAX_WINDOW_S

    doctor = sub.add_parser("doctor", help="cli_help.doctor.help", description="cli_help.doctor.description")
    doctor.add_argument("urls", nargs="*", metavar="URL", help="cli_help.doctor.urls")
    doctor.add_argument("--targets", type=Path, metavar="FILE", help="cli_help.doctor.targets")
    doctor.add_argument("--window", type=float_in(0.5, MAX_WINDOW_S, "--window"), default=DEFAULT_WINDOW_S,
                        metavar="S", help=Help("cli_help.doctor.window", default=f"{DEFAULT_WINDOW_S:g}",
                                               most=f"{MAX_WINDOW_S:g}"))
    doctor.add_argument("--probe", type=int_in(0, MAX_PROBES, "--probe"), default=0, metavar="N",
                        help=Help("cli_help.doctor.probe", most=MAX_PROBES))
    doctor.add_argument("--baseline-tps", type=float_in(0.001, 1e6, "--baseline-tps"), metavar="X",
                        help="cli_help.doctor.baseline_tps")
    doctor.add_argument("--off", metavar="URL", help="cli_help.doctor.off")
    doctor.add_argument("--json", action="store_true", help="cli_help.doctor.json")
    doctor.add_argument("--check", action="store_true", help="cli_help.doctor.check")
    server_option(doctor, "cli_help.watch.server", default=argparse.SUPPRESS)
    doctor.add_argument("--api-key-env", metavar="NAME", default=argparse.SUPPRESS, help="cli_help.api_key_env")
    lang_option(doctor, default=argparse.SUPPRESS)
    timeout_options(doctor, streams=False, default=argparse.SUPPRESS)
    add_prometheus_options(doctor)
    _local_options(doctor)
    doctor.set_defaults(run=run)


def _local_options(doctor: Parser) -> None:
    """`specview`'s own spec flags for a local run (kernel/runspec.py declares each), under their names."""
    from specview.backends.local.run_options import LlamaRunOptions as Llama
    from specview.cli.argtypes import gamma_option, template_name
    from specview.kernel.runspec import RunSpec, default_of, option_of
    from specview.kernel.theory import MAX_GAMMA

    loc = doctor.add_argument_group("cli_help.group.local")
    loc.add_argument(option_of("target", Llama), dest="target", metavar="T.gguf", help="cli_help.doctor.target")
    loc.add_argument(option_of("draft", Llama), dest="draft", metavar="D.gguf|ngram|ngram,D.gguf",
                     help="cli_help.sel.draft")
    loc.add_argument(option_of("gamma", RunSpec), dest="gamma", type=gamma_option(1, MAX_GAMMA), metavar="N|auto",
                     help=Help("cli_help.sel.gamma", max=MAX_GAMMA))
    loc.add_argument(option_of("prompt", RunSpec), dest="prompt", metavar="TEXT", help="cli_help.sel.prompt")
    loc.add_argument(option_of("max_tokens", RunSpec), dest="max_tokens", metavar="N",
                     type=int_in(1, MAX_LOCAL_TOKENS, "--max-tokens"),
                     help=Help("cli_help.doctor.max_tokens", default=LOCAL_TOKENS, most=MAX_LOCAL_TOKENS))
    loc.add_argument(option_of("threads", Llama), dest="threads", type=int_in(1, 1024, "--threads"), metavar="N",
                     help="cli_help.sel.threads")
    loc.add_argument(option_of("gpu_layers", Llama), dest="gpu_layers", type=int_in(-1, 100_000, "--gpu-layers"),
                     metavar="N", help="cli_help.sel.gpu_layers")
    loc.add_argument(option_of("chat_template", Llama), dest="chat_template", type=template_name,
                     metavar="NAME|none", help="cli_help.sel.chat_template")
    loc.add_argument(option_of("seed", RunSpec), dest="seed", type=int_in(0, 2**32 - 1, "--seed"), metavar="S",
                     help=Help("cli_help.sel.seed", default=default_of("seed")))


def run(args: argparse.Namespace) -> int:
    from specview.boundary.jsonio import dumps
    from specview.boundary.secrets import add_url_secrets
    from specview.catalog.config import load_config
    from specview.cli.runspec_args import api_key_of
    from specview.cli.timeout_args import timeouts_of
    from specview.features.doctor.finding import PROBLEM
    from specview.features.doctor.observe import observe
    from specview.features.doctor.render import as_json, lines
    from specview.features.doctor.rules import diagnose
    from specview.features.watch.command.targets import all_targets
    from specview.kernel.errors import CliError
    from specview.kernel.langs import DEFAULT_LANG

    config = load_config()
    lang = getattr(args, "lang", None) or config.lang or DEFAULT_LANG
    timeouts = timeouts_of(args, config)
    reports = []
    if args.target is not None:
        from specview.features.doctor.local import examine

        reports.append(examine(args))
    elif args.prometheus is not None:
        if args.off is not None:
            raise CliError("doctor.off.one_server")
        for obs in _through_prometheus(args, timeouts):
            reports.append((obs, diagnose(obs, args.baseline_tps)))
    else:
        urls = all_targets(args.urls, args.targets)
        if not urls:
            raise CliError("doctor.prometheus.no_servers")
        for url in urls:
            add_url_secrets(url)
        key, key_env = api_key_of(args, config)
        probes = _off_checked(args, urls)
        for url in urls:
            obs = observe(url, window_s=args.window, probes=probes, api_key=key, key_env=key_env,
                          server=getattr(args, "server", None), timeouts=timeouts)
            if args.off is not None:
                from specview.features.doctor.off_baseline import apply, probe_off

                apply(obs, probe_off(args.off, probes, api_key=key, key_env=key_env, server=None,
                                     timeouts=timeouts, window_s=args.window), args.off)
            reports.append((obs, diagnose(obs, args.baseline_tps)))
    if args.json:
        print(dumps(as_json(reports, lang), indent=1))
    else:
        print("\n".join(lines(reports, lang)))
    problem = any(f.severity == PROBLEM for _obs, found in reports for f in found)
    return 1 if args.check and problem else 0


def _off_checked(args: argparse.Namespace, urls: list[str]) -> int:
    """The probes to send: `--probe N`, or with `--off URL` at least DEFAULT_OFF_PROBES on each side.
    `--off` examines one server, and is the baseline itself (not with `--baseline-tps`)."""
    from specview.boundary.secrets import add_url_secrets
    from specview.features.doctor.off_baseline import DEFAULT_OFF_PROBES
    from specview.kernel.errors import CliError

    if args.off is None:
        return int(args.probe)
    add_url_secrets(args.off)
    if len(urls) != 1:
        raise CliError("doctor.off.one_server")
    if args.baseline_tps is not None:
        raise CliError("doctor.off.with_baseline")
    return int(args.probe) or DEFAULT_OFF_PROBES


def _through_prometheus(args: argparse.Namespace, timeouts: Timeouts) -> list[Observation]:
    """Every instance `--prometheus` (narrowed by `--match`) scrapes, over its last `--window` s."""
    from specview.kernel.errors import CliError

    if args.urls or args.targets is not None:
        raise CliError("doctor.prometheus.with_urls")
    if args.probe:
        raise CliError("doctor.prometheus.no_probe")
    try:
        from specview.features.doctor.through_prometheus import observe_prometheus
    except ImportError:
        raise CliError("watcherr.command.no_prometheus") from None
    return observe_prometheus(args, args.window, timeouts)
