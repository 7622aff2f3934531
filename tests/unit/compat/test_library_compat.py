"""Each private name of argparse, re, atexit, textual-serve and llama-cpp-python that specview relies on
(specview/compat) is still where the installed release keeps it: one that moves fails here, naming it."""

from __future__ import annotations

import argparse
import importlib.util
import re

import pytest

from specview.compat import Private, stdlib_compat
from specview.compat.stdlib_compat import (
    AbbreviationHookParser,
    HookedHelpFormatter,
    argparse_translators,
    option_actions,
    parse_regex,
    positional_actions,
    regex_opcodes,
    set_argparse_translators,
    subcommand_parsers,
)
from tests.support.private_names import missing


def extra(module: str, names: tuple[Private, ...]) -> list[object]:
    """The names of an optional extra's compat module, skipped where the extra is not installed."""
    mark = pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=f"{module} is not installed")
    return [pytest.param(private, marks=mark, id=private.dotted) for private in names]


def _optional_names() -> list[object]:
    from specview.compat import llama_compat

    serve: tuple[Private, ...] = ()
    if importlib.util.find_spec("textual_serve") is not None:
        from specview.compat import serve_compat

        serve = serve_compat.PRIVATE
    return extra("llama_cpp", llama_compat.PRIVATE) + extra("textual_serve", serve)


@pytest.mark.parametrize("private", stdlib_compat.PRIVATE, ids=lambda private: private.dotted)
def test_the_standard_library_still_has(private: Private) -> None:
    problem = missing(private)
    assert problem is None, problem


@pytest.mark.parametrize("private", _optional_names())
def test_an_installed_extra_still_has(private: Private) -> None:
    problem = missing(private)
    assert problem is None, problem


def test_a_parser_s_options_positionals_and_subcommands_are_read() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds")
    parser.add_argument("path")
    assert subcommand_parsers(parser) is None
    sub = parser.add_subparsers(dest="command")
    bench = sub.add_parser("bench")
    assert set(option_actions(parser)) == {"-h", "--help", "--rounds"}
    assert [action.dest for action in positional_actions(parser)] == ["path", "command"]
    assert subcommand_parsers(parser) == {"bench": bench}


def test_an_abbreviation_goes_through_the_hook() -> None:
    class NoAbbreviations(AbbreviationHookParser):
        def abbreviations(self, option_string: str, found: list[object]) -> list[object]:
            return []

    plain, strict = AbbreviationHookParser(), NoAbbreviations()
    for parser in (plain, strict):
        parser.add_argument("--rounds")
    assert plain.parse_known_args(["--ro", "3"]) == (argparse.Namespace(rounds="3"), [])
    assert strict.parse_known_args(["--ro", "3"]) == (argparse.Namespace(rounds=None), ["--ro", "3"])


def test_help_goes_through_the_formatter_s_hooks() -> None:
    class Loud(HookedHelpFormatter):
        def help_string(self, action: argparse.Action) -> str:
            return (action.help or "").upper()

        def format_section(self, written: str, heading: str | None, indent: int) -> str:
            return written.replace(f"{heading}:", f"[{heading}]") if heading else written

    parser = argparse.ArgumentParser(prog="p", formatter_class=Loud, description="words")
    parser.add_argument("--rounds", help="how many")
    shown = parser.format_help()
    assert "HOW MANY" in shown and "[options]" in shown


def test_argparse_s_translators_are_swapped_and_restored() -> None:
    translators = argparse_translators()
    assert translators is not None
    gettext, ngettext = translators
    set_argparse_translators(lambda text: f"<{text}>", ngettext)
    try:
        assert argparse._("x") == "<x>"  # type: ignore[attr-defined]
    finally:
        set_argparse_translators(gettext, ngettext)
    assert argparse._ is gettext  # type: ignore[attr-defined]


def test_a_pattern_s_shape_is_read() -> None:
    tree = list(parse_regex("a+(b|c)", re.IGNORECASE))
    assert [op for op, _ in tree] == [regex_opcodes.MAX_REPEAT, regex_opcodes.SUBPATTERN]
