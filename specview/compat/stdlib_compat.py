"""The standard library's private names specview relies on (argparse, re, atexit), all of them,
listed in `PRIVATE` (tests/unit/compat/test_textual_compat.py checks each and fails naming it).

argparse has no public read of a parser's arguments, options, positionals, groups or subcommands (nor
of the help line each subcommand lists), no hook for an
abbreviated option or a help section's heading, no public names for its group and subcommand
types, and says its own messages through its module's `_` and `ngettext`. `re` has no public
parser (the fleet filter bounds a pattern's matching time by its shape). `atexit` has no public
way to run the exit handlers before `os._exit`.
"""

from __future__ import annotations

import argparse
import atexit
import re._constants as regex_opcodes  # the parser's opcodes: LITERAL, MAX_REPEAT, BRANCH, …
import re._parser as _regex_parser
from collections.abc import Callable, Mapping
from typing import Any

from specview.compat import Private

PRIVATE = (
    Private("argparse", "_", "argparse's own messages: argparse_translators"),
    Private("argparse:ArgumentParser", "_get_option_tuples", "an abbreviated option: AbbreviationHookParser"),
    Private("argparse:ArgumentParser", "_subparsers", "a parser's subcommands: subcommand_parsers", instance=True),
    Private("argparse:ArgumentParser", "_option_string_actions", "a parser's options: option_actions",
            instance=True),
    Private("argparse:ArgumentParser", "_get_positional_actions", "a parser's positionals: positional_actions"),
    Private("argparse:ArgumentParser", "_actions", "a parser's arguments in order: parser_actions", instance=True),
    Private("argparse:ArgumentParser", "_action_groups", "a parser's groups: action_groups", instance=True),
    Private("argparse:_SubParsersAction", "_choices_actions", "the help line of each subcommand: subcommand_helps",
            instance=True),
    Private("argparse:_ArgumentGroup", "_group_actions", "a group's actions: subcommand_parsers", instance=True),
    Private("argparse", "_SubParsersAction", "what add_subparsers returns: SubParsersAction"),
    Private("argparse", "_ArgumentGroup", "what add_argument_group returns: ArgumentGroup"),
    Private("argparse", "_MutuallyExclusiveGroup", "a usage's groups: MutuallyExclusiveGroup"),
    Private("argparse:HelpFormatter", "_Section", "a help section: HookedHelpFormatter"),
    Private("argparse:HelpFormatter", "_current_indent", "a help section's indent: HookedHelpFormatter",
            instance=True),
    Private("argparse:HelpFormatter", "_get_help_string", "an action's help: HookedHelpFormatter"),
    Private("argparse:HelpFormatter", "_split_lines", "an action's help wrapped: HookedHelpFormatter"),
    Private("argparse:HelpFormatter", "_fill_text", "a description wrapped: HookedHelpFormatter"),
    Private("re", "_parser", "a pattern's parse tree: parse_regex"),
    Private("re", "_constants", "the parse tree's opcodes: regex_opcodes"),
    Private("atexit", "_run_exitfuncs", "the exit handlers: run_exit_handlers"),
)

__all__ = ["PRIVATE", "AbbreviationHookParser", "ArgumentGroup", "HookedHelpFormatter", "MutuallyExclusiveGroup",
           "SubParsersAction", "action_groups", "argparse_translators", "option_actions", "parse_regex",
           "parser_actions", "positional_actions", "regex_opcodes", "run_exit_handlers", "set_argparse_translators",
           "subcommand_helps", "subcommand_parsers"]

SubParsersAction = argparse._SubParsersAction
ArgumentGroup = argparse._ArgumentGroup
MutuallyExclusiveGroup = argparse._MutuallyExclusiveGroup

Translator = Callable[..., Any]


def argparse_translators() -> tuple[Translator, Translator] | None:
    """argparse's `_` and `ngettext`, through which it says its own messages (None if it has no such names)."""
    gettext: Any = getattr(argparse, "_", None)
    ngettext: Any = getattr(argparse, "ngettext", None)
    return (gettext, ngettext) if callable(gettext) and callable(ngettext) else None


def set_argparse_translators(gettext: Translator, ngettext: Translator) -> None:
    """Have argparse say its messages through these (for every parser in the process)."""
    argparse._, argparse.ngettext = gettext, ngettext  # type: ignore[attr-defined]


class AbbreviationHookParser(argparse.ArgumentParser):
    """A parser that decides what an abbreviated option names (`abbreviations`)."""

    def abbreviations(self, option_string: str, found: list[Any]) -> list[Any]:
        """The options `option_string` abbreviates, of those argparse `found` (override)."""
        return found

    def _get_option_tuples(self, option_string: str) -> list[Any]:
        return self.abbreviations(option_string, super()._get_option_tuples(option_string))


def option_actions(parser: argparse.ArgumentParser) -> Mapping[str, argparse.Action]:
    """Every option string of `parser` (`--rounds`, `-h`) and the action it names."""
    return parser._option_string_actions


def parser_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every argument of `parser` (options, positionals, its subcommands' action), in the order added."""
    return list(parser._actions)


def action_groups(parser: argparse.ArgumentParser) -> list[ArgumentGroup]:
    """`parser`'s argument groups (the sections of its help), in order."""
    return list(parser._action_groups)


def subcommand_helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The help line `parser`'s help lists for each subcommand given one, by name."""
    return {choice.dest: choice.help for action in parser._actions if isinstance(action, SubParsersAction)
            for choice in action._choices_actions if choice.help}


def positional_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """`parser`'s positional arguments, in order."""
    return parser._get_positional_actions()


def subcommand_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser] | None:
    """`parser`'s subcommands by name; None if it has none."""
    if parser._subparsers is None:
        return None
    for action in parser._subparsers._group_actions:
        if isinstance(action, SubParsersAction):
            return dict(action.choices)
    return {}


class HookedHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter (only its name is public), with public hooks for what specview changes:
    an action's help (`help_string`), how text wraps (`split_lines`, `fill_text`) and a section's
    heading (`format_section`)."""

    def help_string(self, action: argparse.Action) -> str:
        """The help shown for `action` (override)."""
        return argparse.HelpFormatter._get_help_string(self, action) or ""

    def split_lines(self, text: str, width: int) -> list[str]:
        """An argument's help as lines of at most `width` (override)."""
        return argparse.HelpFormatter._split_lines(self, text, width)

    def fill_text(self, text: str, width: int, indent: str) -> str:
        """A description or epilog filled to `width`, each line after `indent` (override)."""
        return argparse.HelpFormatter._fill_text(self, text, width, indent)

    def format_section(self, written: str, heading: str | None, indent: int) -> str:
        """A section as argparse `written` it, under `heading` (maybe SUPPRESS), `indent` blanks in (override)."""
        return written

    def _get_help_string(self, action: argparse.Action) -> str:
        return self.help_string(action)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return self.split_lines(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return self.fill_text(text, width, indent)

    class _Section(argparse.HelpFormatter._Section):
        def format_help(self) -> str:
            written: str = super().format_help()
            formatter = self.formatter
            if not isinstance(formatter, HookedHelpFormatter):
                return written
            return formatter.format_section(written, self.heading, formatter._current_indent)


def parse_regex(pattern: str, flags: int = 0) -> Any:
    """The parse tree `re` compiles `pattern` from: (opcode, argument) pairs, nested (re.error if invalid)."""
    return _regex_parser.parse(pattern, flags)


def run_exit_handlers() -> None:
    """Run what `atexit` holds now, as a normal exit would first (before an `os._exit`)."""
    atexit._run_exitfuncs()

