"""The command line: shared options here, each subcommand in its own module (`register`, `run`).

Importing this module must stay light (no textual, numpy, llama_cpp): command modules import
what they need inside `run`.
"""

from __future__ import annotations

import argparse
from importlib import import_module
from typing import Any

from specview import __version__
from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.remote.options import RemoteOptions
from specview.catalog.presets import DEFAULT_PRESET
from specview.cli.argtypes import (
    Parser,
    float_in,
    fps_option,
    gamma_option,
    int_in,
    lang_option,
    server_option,
    template_name,
    tree_option,
)
from specview.cli.help_format import Help, Lang
from specview.cli.plugin_options import add_plugin_options
from specview.cli.runspec_args import BACKEND_OPTION
from specview.cli.timeout_args import timeout_options
from specview.compat.stdlib_compat import ArgumentGroup
from specview.kernel.backend import BackendKind
from specview.kernel.langs import DEFAULT_LANG
from specview.kernel.runspec import RunSpec, default_of, option_of
from specview.kernel.theory import MAX_GAMMA

# Subcommand modules, in --help order; each has register(sub, selectors) and run(args) -> int.
COMMANDS = (
    "specview.cli.presets_cmd",
    "specview.cli.config_cmd",
    "specview.features.info.command",
    "specview.features.live.bench_command",
    "specview.features.live.compare_command",
    "specview.features.record.command",
    "specview.features.learn.command",
    "specview.features.learn.calc_command",
    "specview.features.serve.command",
    "specview.features.watch.command",
    "specview.features.doctor.command",
    "specview.features.sweep.command",
    "specview.features.diff.command",
)


def _spec_option(group: ArgumentGroup, field: str, record: type[Any] = RunSpec, **options: Any) -> None:
    """The option RunSpec (or a backend's options record) declares for `field` (kernel/runspec.py),
    stored under the field's name, where cli/runspec_args.py reads it back."""
    group.add_argument(option_of(field, record), dest=field, **options)


def _selectors(*, defaults: bool = True) -> Parser:
    """Options shared by the live view, bench and compare: which backend, and its settings.

    Subcommands take them without defaults (`defaults=False`): argparse copies a subcommand's
    defaults over the whole namespace, which would drop `specview --seed 5 bench`'s seed.
    """
    p = Parser(add_help=False, argument_default=None if defaults else argparse.SUPPRESS)
    g = p.add_argument_group("cli_help.group.run")
    _spec_option(g, "preset", metavar="ID", help=Help("cli_help.sel.preset", default=DEFAULT_PRESET))
    _spec_option(g, "prompt", metavar="TEXT", help="cli_help.sel.prompt")
    _spec_option(g, "temperature", type=float_in(0.0, 5.0, "--temperature"), metavar="T",
                 help="cli_help.sel.temperature")
    _spec_option(g, "gamma", type=gamma_option(1, MAX_GAMMA), metavar="N|auto",
                 help=Help("cli_help.sel.gamma", max=MAX_GAMMA))
    _spec_option(g, "seed", type=int_in(0, 2**32 - 1, "--seed"), metavar="S",
                 default=default_of("seed") if defaults else argparse.SUPPRESS,
                 help=Help("cli_help.sel.seed", default=default_of("seed")))
    lang_option(g, "cli_help.sel.lang")
    g.add_argument(BACKEND_OPTION, dest="backend", metavar="NAME",
                   help=Help("cli_help.sel.backend", known=", ".join(BackendKind)))
    loc = p.add_argument_group("cli_help.group.local")
    llama = LlamaRunOptions
    _spec_option(loc, "target", llama, metavar="T.gguf", help="cli_help.sel.target")
    _spec_option(loc, "draft", llama, metavar="D.gguf|ngram|ngram,D.gguf", help="cli_help.sel.draft")
    _spec_option(loc, "demo", llama, action="store_true", help="cli_help.sel.demo")
    _spec_option(loc, "gpu_layers", llama, type=int_in(-1, 100_000, "--gpu-layers"), metavar="N",
                 help="cli_help.sel.gpu_layers")
    _spec_option(loc, "threads", llama, type=int_in(1, 1024, "--threads"), metavar="N", help="cli_help.sel.threads")
    _spec_option(loc, "plain", action="store_true", help="cli_help.sel.plain")
    _spec_option(loc, "adaptive", llama, action="store_true", help="cli_help.sel.adaptive")
    loc.add_argument(option_of("repack", llama), dest="repack", action=argparse.BooleanOptionalAction,
                     help="cli_help.sel.repack")
    _spec_option(loc, "tree", type=tree_option, metavar="WxD", help="cli_help.sel.tree")
    _spec_option(loc, "max_tokens", type=int_in(1, 1_000_000, "--max-tokens"), metavar="N",
                 help="cli_help.sel.max_tokens")
    _spec_option(loc, "chat_template", llama, type=template_name, metavar="NAME|none",
                 help="cli_help.sel.chat_template")
    rem = p.add_argument_group("cli_help.group.remote")
    _spec_option(rem, "url", RemoteOptions, metavar="URL", help="cli_help.sel.url")
    _spec_option(rem, "model", RemoteOptions, metavar="M", help="cli_help.sel.model")
    _spec_option(rem, "api_key_env", metavar="NAME", help="cli_help.api_key_env")
    server_option(rem, "cli_help.sel.server")
    _spec_option(rem, "raw", RemoteOptions, action="store_true", help="cli_help.sel.raw")
    _spec_option(rem, "read_timeout", RemoteOptions, type=float_in(0.1, 3600.0, "--read-timeout"), metavar="S",
                 help="cli_help.sel.read_timeout")
    timeout_options(rem, default=None if defaults else argparse.SUPPRESS)
    _spec_option(rem, "baseline_tps", RemoteOptions, type=float_in(0.001, 1e6, "--baseline-tps"), metavar="X",
                 help="cli_help.sel.baseline_tps")
    add_plugin_options(p)
    return p


def build_parser(lang: Lang = DEFAULT_LANG) -> Parser:
    """The whole command line; its help is said in `lang` (a language, or how to find it when help is shown)."""
    sel, sub_sel = _selectors(), _selectors(defaults=False)
    parser = Parser(prog="specview", description="cli_help.main.description", parents=[sel],
                    epilog="cli_help.main.epilog", lang=lang)
    parser.add_argument("--version", action="version", version=f"specview {__version__}")
    parser.add_argument("--speed", type=float_in(0.0, 1000.0, "--speed"), metavar="X",
                        help=Help("cli_help.main.speed", default=f"{default_of('speed'):g}"))
    parser.add_argument("--theme", metavar="NAME", help="cli_help.main.theme")
    fps_option(parser, default=None)
    parser.add_argument("--record", metavar="FILE", help="cli_help.main.record")
    parser.add_argument("--force", action="store_true", help="cli_help.record_force")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        import_module(name).register(sub, sub_sel)
    return parser
