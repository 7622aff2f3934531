"""`specview learn [N] [--json] [--target FILE.gguf] [--preset ID]`: the explainer, or one screen's computed numbers."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from specview.cli.argtypes import Parser, SubParsers, int_in, lang_option

if TYPE_CHECKING:
    from specview.features.learn.registry import Lesson


def register(sub: SubParsers, selectors: Parser) -> None:
    learn = sub.add_parser("learn", help="cli_help.learn.help", description="cli_help.learn.description")
    learn.add_argument("number", nargs="?", type=int_in(1, 99, "N"), metavar="N", help="cli_help.learn.number")
    learn.add_argument("--json", action="store_true", help="cli_help.learn.json")
    lang_option(learn, default=argparse.SUPPRESS)
    learn.add_argument("--target", metavar="FILE.gguf", default=argparse.SUPPRESS,
                       help="cli_help.learn.target")
    learn.add_argument("--demo", action="store_true", default=argparse.SUPPRESS,
                       help="cli_help.learn.demo")
    learn.add_argument("--preset", metavar="ID", dest="learn_preset", default=argparse.SUPPRESS,
                       help="cli_help.learn.preset")
    learn.set_defaults(run=run)


def target_path(args: argparse.Namespace) -> str | None:
    """The GGUF the screens may read: --target, or the demo model with --demo; CliError if unusable."""
    from specview.cli.errors import CliError

    target = getattr(args, "target", None)
    if target is None and getattr(args, "demo", False):
        from specview.backends.local.demo import demo_model_path

        return str(demo_model_path())
    if target is None:
        return None
    path = Path(target)
    if not path.is_file():
        raise CliError("learnerr.no_target", target=target)
    from specview.boundary.safe_files import open_regular
    from specview.kernel.errors import BackendError
    from specview.kernel.os_reason import os_reason

    try:
        with open_regular(path) as fh:  # a FIFO put there since the check is refused, not waited on
            magic = fh.read(4)
    except OSError as exc:
        raise BackendError("backenderr.gguf.unreadable", path=target, reason=os_reason(exc)) from None
    if magic != b"GGUF":
        raise CliError("learnerr.not_gguf", target=target)
    return str(path)


def run(args: argparse.Namespace) -> int:
    from specview.cli.errors import CliError
    from specview.features.learn.registry import lesson

    chosen = lesson(args.number) if args.number is not None else None
    if args.json:
        if chosen is None:
            raise CliError("learnerr.json_needs_number")
        from specview.boundary.jsonio import dumps

        lang = getattr(args, "lang", None) or "en"
        target = target_path(args)
        model_numbers = chosen.model_numbers if target is not None else None
        preset = getattr(args, "learn_preset", None)
        if preset is not None:
            numbers = preset_numbers(chosen, lang, preset)
        elif model_numbers is None or target is None:
            numbers = chosen.numbers(lang)
        else:
            numbers = model_numbers(lang, target)
        if target is not None:  # what the screens read of the model (Learn 8's g); BackendError if unusable
            from specview.features.learn.local_model import gguf_facts

            numbers["gguf"] = gguf_facts(target)
        print(dumps(numbers))
        return 0
    if getattr(args, "learn_preset", None) is not None:
        raise CliError("learnerr.preset_needs_json", number="N" if args.number is None else args.number)
    target = target_path(args)
    if target is not None and getattr(args, "target", None) is not None:  # the demo model is ours
        from specview.backends.local.gguf_info import read_gguf_info

        read_gguf_info(target)  # before any screen: a hostile header is one line, not a screen without its model
    from specview.cli.app_run import run_app, ui_settings
    from specview.cli.not_a_terminal import need_terminal
    from specview.texts.catalog import Phrase

    ui = ui_settings(args)
    number = "N" if args.number is None else args.number
    need_terminal(Phrase("not_a_terminal.what.learn"), f"specview learn {number} --json")
    from specview.features.learn.app import LearnApp
    from specview.features.learn.explain.context import RunContext

    run_context = None if target is None else RunContext(backend="file", target_path=target)
    return run_app(LearnApp(chosen, theme_name=ui.theme, lang=ui.lang, problems=ui.problems, keymap=ui.keymap,
                            run=run_context))


def preset_numbers(chosen: Lesson, lang: str, preset_id: str) -> dict[str, Any]:
    """What screen `chosen` shows with this preset chosen; CliError for a screen that takes no preset,
    PresetError (listing the ids) for a preset there is not."""
    from specview.cli.errors import CliError
    from specview.features.learn.registry import lessons

    if chosen.preset_numbers is None:
        takes = ", ".join(str(item.number) for item in lessons() if item.preset_numbers is not None)
        raise CliError("learnerr.no_preset_screen", number=chosen.number, takes=takes)
    from specview.catalog.presets import get_preset

    get_preset(preset_id)  # an unknown id: the error that lists the known ones
    return chosen.preset_numbers(lang, preset_id)
