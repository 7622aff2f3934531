"""`specview calc`: τ and the speedup from α, γ, c (and v) on the command line (Leviathan Eq. 1, Thm 3.8)."""

from __future__ import annotations

import argparse

from specview.cli.argtypes import Parser, SubParsers, float_in, int_in, lang_option
from specview.cli.help_format import Help
from specview.kernel.theory import MAX_GAMMA


def register(sub: SubParsers, selectors: Parser) -> None:
    calc = sub.add_parser(
        "calc", help="cli_help.calc.help", description="cli_help.calc.description")
    calc.add_argument("--alpha", type=float_in(0.0, 1.0, "--alpha"), required=True, metavar="A",
                      help="cli_help.calc.alpha")
    calc.add_argument("--gamma", type=int_in(1, MAX_GAMMA, "--gamma"), required=True, metavar="G",
                      help=Help("cli_help.calc.gamma", max=MAX_GAMMA))
    calc.add_argument("--c", type=float_in(0.0, 100.0, "--c"), required=True, metavar="C",
                      help="cli_help.calc.c")
    calc.add_argument("--verify-ratio", type=float_in(0.01, 1000.0, "--verify-ratio"), default=1.0, metavar="V",
                      help="cli_help.calc.verify_ratio")
    calc.add_argument("--json", action="store_true", help="cli_help.calc.json")
    lang_option(calc, "cli_help.calc.lang", default=argparse.SUPPRESS)
    calc.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from specview.features.learn.explain.speedup import speedup_numbers
    from specview.texts.catalog import fill

    n = speedup_numbers(args.alpha, args.gamma, args.c, args.verify_ratio)
    if args.json:
        from specview.boundary.jsonio import dumps

        print(dumps(n))
        return 0
    lang = getattr(args, "lang", None) or "en"

    def t(key: str, **values: object) -> str:
        return fill(f"learn.calc.{key}", lang, **values)

    even = n["break_even"]
    verdict = t("helps", bound=even["lower_bound"]) if even["alpha_beats_c"] else t("never")
    rows = [
        ("", f"α {n['alpha']:g} · γ {n['gamma']} · c {n['c']:g} · v {n['verify_ratio']:g}"),
        (t("tau"), f"{n['expected_tau']:.4f}   (1 − α^(γ+1)) / (1 − α)"),
        (t("speedup"), f"{n['speedup']:.4f}×  τ / (γc + v)"),
        (t("best"), f"γ {n['best_gamma']} → {n['best_speedup']:.4f}×"),
        (t("break_even"), verdict),
    ]
    from rich.cells import cell_len

    width = max(cell_len(label) for label, _ in rows)
    for label, value in rows:
        print(label + " " * (width - cell_len(label) + 2) + value)
    return 0
