"""argparse pieces every command module uses: a parser whose errors are one line, ranged types."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from specview.cli.argparse_words import in_language, kept_words, said
from specview.cli.errors import fail
from specview.cli.help_format import HELP_ID, VERSION_ID, Help, HelpFormatter, Lang
from specview.compat.stdlib_compat import AbbreviationHookParser, ArgumentGroup, SubParsersAction, subcommand_parsers
from specview.kernel.langs import DEFAULT_LANG, LANGS
from specview.texts.catalog import Phrase

Number = TypeVar("Number", int, float)


class Parser(AbbreviationHookParser):
    """An ArgumentParser whose errors are one line and exit code 2, and whose help is said in `lang`
    (a language, or how to find it when help is shown; cli/help_format.py): its subcommands' too."""

    def __init__(self, *args: Any, lang: Lang = DEFAULT_LANG, **kwargs: Any) -> None:
        self.help_lang = lang
        kwargs.setdefault("formatter_class", partial(HelpFormatter, lang=lang))
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """-h/--help (argparse adds it itself) and --version say their help in the catalog's words."""
        if kwargs.get("action") == "help":
            kwargs["help"] = HELP_ID
        elif kwargs.get("action") == "version":
            kwargs.setdefault("help", VERSION_ID)
        return super().add_argument(*args, **kwargs)

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs["parser_class"] = partial(kwargs.get("parser_class", type(self)), lang=self.help_lang)
        return super().add_subparsers(**kwargs)

    def error(self, message: str) -> NoReturn:
        """One line in the language the command line or the config asks for: argparse's own words too
        (cli/argparse_words.py), with the pointer to --help."""
        from specview.cli.error_lang import error_lang
        from specview.texts.catalog import fill

        lang = error_lang(None, sys.argv[1:])
        fail(fill("clierr.usage", lang, message=in_language(message, lang)))

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        with kept_words():  # "unrecognized arguments" is said here, after parse_known_args
            return super().parse_args(args, namespace)

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        """An unknown or ambiguous option is named first (cli/option_check.py), before argparse
        takes the word after it for a value or a subcommand."""
        from specview.cli.option_check import check_options

        words = list(sys.argv[1:] if args is None else args)
        check_options(self, words)
        with kept_words():
            return super().parse_known_args(words, namespace)

    def abbreviations(self, option_string: str, found: list[Any]) -> list[Any]:
        """Abbreviations, except that a parser with subcommands takes an ambiguous one as unknown:
        argparse sorts every word before it hands the rest to the subcommand, so `calc --c` would
        die as "ambiguous: --chat-template, --connect-timeout" before calc saw its own --c."""
        return [] if len(found) > 1 and subcommand_parsers(self) is not None else found


if TYPE_CHECKING:
    SubParsers = SubParsersAction[Parser]  # what `add_subparsers` returns
else:
    SubParsers = SubParsersAction


def ranged(kind: Callable[[str], Number], low: Number, high: Number, name: str) -> Callable[[str], Number]:
    """An argparse type: `kind(text)` within [low, high], with a one-line reason otherwise."""
    noun = "cli_errors.value.integer" if kind is int else "cli_errors.value.number"

    def check(text: str) -> Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(said(Phrase(noun, name=name, got=repr(text)))) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(said(Phrase("cli_errors.value.range", name=name, low=f"{low:g}",
                                                         high=f"{high:g}", got=text)))
        return value

    return check


def float_in(low: float, high: float, name: str) -> Callable[[str], float]:
    return ranged(float, low, high, name)


def int_in(low: int, high: int, name: str) -> Callable[[str], int]:
    return ranged(int, low, high, name)


def tree_option(text: str) -> str:
    """`--tree WxD`, checked here so a bad shape is one line before anything loads (kept as given)."""
    from specview.kernel.tree_shape import parse_tree

    try:
        return str(parse_tree(text))
    except ValueError as exc:  # its reason is a Phrase (kernel/tree_shape.py)
        reason = exc.args[0] if exc.args and isinstance(exc.args[0], Phrase) else None
        raise argparse.ArgumentTypeError(said(reason) if reason is not None else str(exc)) from None


def gamma_option(low: int, high: int) -> Callable[[str], int | str]:
    """`--gamma`'s value: a γ in [low, high], or the word `auto` (cli/runspec_args.py resolves it)."""
    fixed = int_in(low, high, "--gamma")

    def parse(text: str) -> int | str:
        return "auto" if text.strip().lower() == "auto" else fixed(text)

    return parse


FPS_RANGE = (1.0, 60.0)


def template_name(text: str) -> str:
    """`--chat-template`'s value: a name's shape (which names exist, llama.cpp says when loaded)."""
    from specview.catalog.config import TEMPLATE_NAME

    if TEMPLATE_NAME.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(said(Phrase("cli_errors.value.chat_template", got=repr(text))))
    return text


def fps_option(parser: argparse.ArgumentParser, default: object = argparse.SUPPRESS) -> None:
    """`--fps N`: how often the screen redraws (a subcommand's has no default: the top level's applies)."""
    parser.add_argument("--fps", type=float_in(*FPS_RANGE, "--fps"), default=default, metavar="N",
                        help="cli_help.fps")


def lang_option(parser: argparse.ArgumentParser | ArgumentGroup, what: str = "cli_help.lang",
                **kwargs: object) -> None:
    """`--lang` with the languages specview speaks (kernel/langs.py); `what`: its help's catalog id."""
    parser.add_argument("--lang", choices=LANGS, help=what, **kwargs)  # type: ignore[arg-type]


def speed_option(parser: argparse.ArgumentParser, what: str) -> None:
    """`--speed X` on a subcommand (no default: the top-level option or the config decides); `what`: its help's id."""
    parser.add_argument("--speed", type=float_in(0.0, 1000.0, "--speed"), default=argparse.SUPPRESS,
                        metavar="X", help=what)


class ServerNames:
    """`--server`'s choices, `auto` and every server kind's id, read from the registry only when
    argparse looks (a value given, --help): finding the kinds imports each one and every plugin,
    which a simulator run never needs."""

    def __contains__(self, name: object) -> bool:
        return name in tuple(self)

    def __iter__(self) -> Iterator[str]:
        from specview.backends.remote.registry import server_ids

        return iter(("auto", *server_ids()))


def server_option(parser: argparse.ArgumentParser | ArgumentGroup, what: str,
                  default: str | None = None) -> None:
    """`--server KIND`: the family to speak to, or `auto` to detect it. (A metavar of its own, or
    argparse would list the choices, and so find the kinds, as the option is added.) `what`: a catalog id."""
    parser.add_argument("--server", choices=ServerNames(), metavar="KIND", default=default,
                        help=Help("cli_help.server", what=Help(what)))
