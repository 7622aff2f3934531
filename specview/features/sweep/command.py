"""`specview sweep gamma|load`: does speculation pay on my engine, and at which γ / load?

    specview sweep gamma --target T.gguf --draft ngram --gammas 1-6 --prompt … --max-tokens 128
    specview sweep gamma --url http://host:8080 --gammas 1-4          # where the server honours γ
    specview sweep load --on http://host:8080 --off http://host:8081 --concurrency 1,2,4,8

A local γ sweep runs the prompt once more with `--gamma auto` (`--no-auto` skips it) and prints
what auto chose next to the measured best. Results as a table and a terminal chart (default),
`--json` (one object, the shapes in features/sweep/model.py) and `--markdown FILE` (a report).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from specview.boundary.text import shown
from specview.cli.argparse_words import said
from specview.cli.argtypes import Parser, SubParsers, int_in, lang_option
from specview.cli.help_format import Help
from specview.features.sweep.model import MAX_CONCURRENCY, MAX_LEVELS, MAX_REPEATS
from specview.kernel.os_reason import os_reason
from specview.kernel.theory import MAX_GAMMA
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.features.sweep.model import GammaSweep, LoadSweep

DEFAULT_LEVELS = (1, 2, 4, 8)
DEFAULT_REPEATS = 3  # the fewest that give a spread with a check on it (kernel/verdict.py)


def int_list(name: str, low: int, high: int, most: int = MAX_LEVELS) -> Callable[[str], list[int]]:
    """An argparse type for '1-6' or '1,2,4' (ranges and lists mix: '1-3,6')."""

    def parse(value: str) -> list[int]:
        out: list[int] = []
        try:
            for part in value.split(","):
                lo, sep, hi = part.strip().partition("-")
                first, last = int(lo), int(hi) if sep else int(lo)
                if last < first or last - first > most:
                    raise ValueError
                out += range(first, last + 1)
        except ValueError:
            raise argparse.ArgumentTypeError(said(Phrase("cli_errors.value.list_shape", name=name,
                                                         got=shown(value)))) from None
        if not out or len(out) > most or any(not low <= n <= high for n in out):
            raise argparse.ArgumentTypeError(said(Phrase("cli_errors.value.list_range", name=name, low=low, high=high,
                                                         got=shown(value))))
        return sorted(set(out))

    return parse


def _outputs(p: argparse.ArgumentParser, *, lang: bool = True) -> None:
    p.add_argument("--json", action="store_true", help="cli_help.sweep.json")
    p.add_argument("--markdown", metavar="FILE", help="cli_help.sweep.markdown")
    p.add_argument("--force", action="store_true", default=argparse.SUPPRESS,
                   help="cli_help.sweep.force")
    if lang:  # the selectors already carry --lang
        lang_option(p, "cli_help.sweep.lang", default=argparse.SUPPRESS)


def register(sub: SubParsers, selectors: Parser) -> None:
    sweep = sub.add_parser("sweep", help="cli_help.sweep.help")
    kinds = sweep.add_subparsers(dest="sweep_kind", metavar="gamma|load", parser_class=Parser, required=True)
    gamma = kinds.add_parser("gamma", parents=[selectors],
                             help="cli_help.sweep.gamma.help", description="cli_help.sweep.gamma.description")
    gamma.add_argument("--gammas", type=int_list("--gammas", 1, MAX_GAMMA), default=[1, 2, 3, 4, 5, 6],
                       metavar="LIST", help="cli_help.sweep.gamma.gammas")
    gamma.add_argument("--no-plain", dest="with_plain", action="store_false",
                       help="cli_help.sweep.gamma.no_plain")
    gamma.add_argument("--no-auto", dest="with_auto", action="store_false",
                       help="cli_help.sweep.gamma.no_auto")
    _outputs(gamma, lang=False)
    gamma.set_defaults(run=run_gamma)
    load = kinds.add_parser("load", help="cli_help.sweep.load.help", description="cli_help.sweep.load.description")
    load.add_argument("--on", required=True, metavar="URL", help="cli_help.sweep.load.on")
    load.add_argument("--off", required=True, metavar="URL", help="cli_help.sweep.load.off")
    load.add_argument("--concurrency", type=int_list("--concurrency", 1, MAX_CONCURRENCY), default=list(DEFAULT_LEVELS),
                      metavar="LIST", help="cli_help.sweep.load.concurrency")
    load.add_argument("--requests", type=int_in(1, 10_000, "--requests"), default=2, metavar="N",
                      help="cli_help.sweep.load.requests")
    load.add_argument("--max-tokens", type=int_in(1, 100_000, "--max-tokens"), default=128, metavar="N",
                      help="cli_help.sweep.load.max_tokens")
    load.add_argument("--repeats", type=int_in(1, MAX_REPEATS, "--repeats"), default=DEFAULT_REPEATS, metavar="N",
                      help=Help("cli_help.sweep.load.repeats", default=DEFAULT_REPEATS, max=MAX_REPEATS))
    load.add_argument("--prompt", metavar="TEXT", help="cli_help.sweep.load.prompt")
    load.add_argument("--model", metavar="M", help="cli_help.sweep.load.model")
    load.add_argument("--api-key-env", metavar="NAME", default=argparse.SUPPRESS,
                      help="cli_help.api_key_env")
    _outputs(load)
    load.set_defaults(run=run_load)


def _emit(result: GammaSweep | LoadSweep, args: argparse.Namespace, text_out: str, md_out: str) -> int:
    from specview.boundary.jsonio import dumps
    from specview.boundary.safe_files import write_new
    from specview.features.sweep.saved import save_sweep

    data = result.to_dict()
    save_sweep(data["kind"], dumps(data))  # Learn 10 (γ) and 11 (load) draw the last one on their axes
    print(dumps(data) if args.json else text_out, end="\n" if args.json else "")
    if args.markdown:
        with _report_errors(args.markdown):
            write_new(args.markdown, md_out, replace=args.force)
    return 0


def _check_report(args: argparse.Namespace) -> None:
    """Before a sweep, which may take minutes: refuse a --markdown FILE that exists (without --force)."""
    from specview.boundary.safe_files import check_new

    if args.markdown:
        with _report_errors(args.markdown):
            check_new(args.markdown, replace=args.force)


@contextmanager
def _report_errors(name: str) -> Iterator[None]:
    """The report's write errors as one line naming the whole path (fail() sanitises the line)."""
    from specview.cli.errors import CliError

    try:
        yield
    except FileExistsError:
        raise CliError("recorderr.exists", path=name) from None
    except OSError as exc:
        raise CliError("sweeperr.cannot_write", path=name, reason=os_reason(exc)) from None


def _lang(args: argparse.Namespace) -> str:
    from specview.kernel.langs import DEFAULT_LANG

    return getattr(args, "lang", None) or DEFAULT_LANG


def run_gamma(args: argparse.Namespace) -> int:
    _check_report(args)
    from specview.cli.runspec_args import spec_from_args, specs_key_notice, warn_notice
    from specview.features.sweep.model import analyse_gamma
    from specview.features.sweep.render import gamma_markdown, gamma_text
    from specview.features.sweep.runner import gamma_points
    from specview.texts.catalog import text

    lang = _lang(args)
    base = spec_from_args(args, speed=0.0)
    if base.kind not in ("llama", "openai"):
        from specview.cli.errors import CliError

        raise CliError("sweeperr.needs_engine")
    warn_notice(specs_key_notice([base], lang))
    plain = args.with_plain and base.kind == "llama"

    def progress(gamma: int) -> None:
        if not args.json:
            print(f"… γ {gamma}" if gamma else f"… {text('sweep.plain', lang)}", file=sys.stderr, flush=True)

    points, notes = gamma_points(base, args.gammas, plain=plain, progress=progress)
    sweep = analyse_gamma(points, notes, untimed=base.kind == "openai")  # a server times no cost
    if base.kind == "llama" and args.with_auto:  # what --gamma auto would choose, beside the measured best
        from dataclasses import replace

        from specview.features.sweep.runner import auto_point

        if not args.json:
            print("… γ auto", file=sys.stderr, flush=True)
        sweep = replace(sweep, auto=auto_point(base))
    return _emit(sweep, args, gamma_text(sweep, lang), gamma_markdown(sweep, lang))


def run_load(args: argparse.Namespace) -> int:
    _check_report(args)
    from specview.backends.remote.dialect import DEFAULT_PROMPT
    from specview.catalog.config import load_config
    from specview.cli.runspec_args import api_key_of, warn_notice, withheld_key_notice
    from specview.cli.timeout_args import timeouts_of
    from specview.features.sweep.load import LoadClient, load_point, unchecked_notes
    from specview.features.sweep.model import LoadSweep
    from specview.features.sweep.render import load_markdown, load_text

    lang = _lang(args)
    config = load_config()
    key, key_env = api_key_of(args, config)
    warn_notice(withheld_key_notice(key, [args.on, args.off], lang))
    prompt = args.prompt or DEFAULT_PROMPT
    timeouts = timeouts_of(args, config)
    on = LoadClient(args.on, key, key_env, args.model, timeouts)
    try:
        off = LoadClient(args.off, key, key_env, args.model, timeouts)
    except BaseException:
        on.close()
        raise
    points = []
    try:
        for client in (on, off):  # warm-up: prompt cache, lazy allocations
            client.one(prompt, min(8, args.max_tokens), seed=0)
        for level in args.concurrency:
            if not args.json:
                print(f"… {level}", file=sys.stderr, flush=True)
            points.append(load_point(on, off, level, args.repeats, args.requests, prompt, args.max_tokens))
    finally:
        on.close()
        off.close()
    sweep = LoadSweep(tuple(points), on.root, off.root, unchecked_notes(tuple(points), on.root, off.root),
                      args.repeats)
    return _emit(sweep, args, load_text(sweep, lang), load_markdown(sweep, lang))
