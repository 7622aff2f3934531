"""`specview config check`: every problem of the config file, the SPECVIEW_* variables, the
`[keymap]` ids, the user presets and the config's theme, in full (the live view's notification
and a headless command's warnings point here). Exit 0 when there is none, 2 when there are."""

from __future__ import annotations

import argparse
import os
from typing import Any

from specview.cli.argtypes import Parser, SubParsers, lang_option


def register(sub: SubParsers, selectors: Parser) -> None:
    config = sub.add_parser("config", help="cli_help.config.help")
    actions = config.add_subparsers(dest="config_action", metavar="check", parser_class=Parser, required=True)
    check = actions.add_parser("check", help="cli_help.config.check.help",
                               description="cli_help.config.check.description")
    check.add_argument("--json", action="store_true", help="cli_help.config.check.json")
    lang_option(check, default=argparse.SUPPRESS)
    check.set_defaults(run=run)


def findings(lang: str) -> dict[str, Any]:
    """What was read, from where, and every problem in `lang` (each one line, sanitised: config text
    is from outside)."""
    from specview.boundary.bounds import MAX_SHOWN
    from specview.boundary.text import sanitize
    from specview.catalog.config import ENV_KEYS, config_path
    from specview.catalog.presets import user_preset_dir
    from specview.cli.config_report import gather

    path, presets = config_path(), user_preset_dir()
    found = gather()
    said = found.in_language(lang)
    names = ["SPECVIEW_CONFIG", *(f"SPECVIEW_{key.upper()}" for key in ENV_KEYS)]
    return {
        "config_file": sanitize(str(path), MAX_SHOWN, one_line=True),
        "config_found": path.is_file(),
        "preset_dir": sanitize(str(presets), MAX_SHOWN, one_line=True),
        "preset_files": len(list(presets.glob("*.toml"))) if presets.is_dir() else 0,
        "environment": [name for name in names if os.environ.get(name)],
        "problems": [sanitize(" ".join(p.split()), MAX_SHOWN, one_line=True) for p in said],
    }


def run(args: argparse.Namespace) -> int:
    from specview.boundary.jsonio import dumps
    from specview.catalog.config import load_config
    from specview.kernel.langs import DEFAULT_LANG
    from specview.texts.catalog import fill, text

    lang = getattr(args, "lang", None) or load_config().lang or DEFAULT_LANG
    report = findings(lang)
    if args.json:
        print(dumps({**report, "ok": not report["problems"]}))
        return 2 if report["problems"] else 0
    state = "cli_use.check.found" if report["config_found"] else "cli_use.check.not_found"
    print(fill("cli_use.check.config", lang, path=report["config_file"], state=text(state, lang)))
    print(fill("cli_use.check.presets", lang, path=report["preset_dir"], files=report["preset_files"]))
    print(fill("cli_use.check.environment", lang,
               names=", ".join(report["environment"]) or text("cli_use.check.none_set", lang)))
    problems = report["problems"]
    if not problems:
        print(text("cli_use.check.clean", lang))
        return 0
    print(fill("cli_use.check.problems", lang, n=len(problems)))
    for problem in problems:
        print(f"  - {problem}")
    return 2
