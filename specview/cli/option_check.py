"""Options a parser does not know, named as such before argparse reads the words.

argparse sets an unknown option aside and reads on, so `specview --gama 5` took `5` for the
subcommand and answered "argument COMMAND: invalid choice: '5'", and `specview bench --gama 5`
reported the missing required options first. `check_options` walks the words a parser is about
to read, the way argparse splits them (an option, its values, `--`), and raises a CliError for
the first option it does not know — with the nearest one it does (difflib) — or for an
abbreviation that could be several. A parser with subcommands stops at the subcommand's name:
what follows is the subcommand's to judge, with its own options; a name that is no subcommand
is named too, with the nearest one.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence

from specview.boundary.text import sanitize
from specview.compat.stdlib_compat import option_actions, positional_actions, subcommand_parsers
from specview.kernel.errors import CliError
from specview.texts.catalog import Phrase

# argparse's own test for a negative number, which is a value, not an option
_NEGATIVE = re.compile(r"^-\d+$|^-\d*\.\d+$")
# how alike a typo and an option must be to be offered (difflib's ratio): --gama/--gamma 0.92,
# --prompt-file/--prompt 0.76; --frobnicate/--force 0.63 is no help
NEAR = 0.7


def check_options(parser: argparse.ArgumentParser, words: Sequence[str]) -> None:
    """CliError for the first word that names no option of `parser` or abbreviates several."""
    stop_at_positional = subcommand_parsers(parser) is not None or any(
        action.nargs in (argparse.REMAINDER, argparse.PARSER) for action in positional_actions(parser))
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            return
        action, explicit = _known(parser, word) if _may_be_option(word) else (None, False)
        if action is None and not _may_be_option(word):  # a value, or the subcommand
            if stop_at_positional:  # the subcommand (or a command line passed on): not ours to judge
                _check_command(parser, word)
                return
            continue
        if action is None:
            raise _unknown(parser, word)
        if not explicit:
            index = _after_values(action, words, index)


def _may_be_option(word: str) -> bool:
    return len(word) > 1 and word[0] == "-" and not _NEGATIVE.match(word)


def _looks_like_option(word: str) -> bool:
    """As argparse reads a word no option matches: with a space it is a value (`--prom=a b`, an
    abbreviation with its value, is matched before this: argparse tries options first)."""
    return _may_be_option(word) and " " not in word


def _known(parser: argparse.ArgumentParser, word: str) -> tuple[argparse.Action | None, bool]:
    """The action `word` names (exactly, before an `=`, or as an unambiguous abbreviation) and
    whether the word carries its value; an ambiguous abbreviation is a CliError."""
    table = option_actions(parser)
    if word in table:
        return table[word], False
    name, equals, _ = word.partition("=")
    if equals and name in table:
        return table[name], True
    if not word.startswith("--"):  # `-d2`: a short option with its value attached
        action = table.get(word[:2])
        return action, action is not None and action.nargs != 0
    if not parser.allow_abbrev:
        return None, False
    matches = [option for option in table if option.startswith(name)]
    if len(matches) > 1:
        raise CliError("cli_use.ambiguous_option", option=_name(word), matches=", ".join(matches),
                       help=parser.prog)
    return (table[matches[0]], bool(equals)) if matches else (None, False)


def _after_values(action: argparse.Action, words: Sequence[str], index: int) -> int:
    """Where the words after `action`'s option resume, past the values it takes."""
    nargs = action.nargs
    if nargs is None:
        return index + 1
    if isinstance(nargs, int):
        return index + nargs
    if nargs == argparse.OPTIONAL:
        return index + 1 if index < len(words) and not _looks_like_option(words[index]) else index
    while index < len(words) and not _looks_like_option(words[index]) and words[index] != "--":
        index += 1  # `*` and `+`: every value up to the next option
    return index


def _name(word: str) -> str:
    """The option a word names, without its value (a value may be private: a prompt, a key)."""
    return sanitize(re.split(r"[= ]", word, maxsplit=1)[0], 80, one_line=True)


def _unknown(parser: argparse.ArgumentParser, word: str) -> CliError:
    """The error for an option `parser` lacks: the subcommands that have it (`specview --rounds 9
    bench` meant `specview bench --rounds 9`), else the nearest of its own."""
    name = re.split(r"[= ]", word, maxsplit=1)[0]
    options = [option for option in option_actions(parser) if option.startswith("--")]
    owners = [command for command, sub in _subcommands(parser).items() if name in option_actions(sub)]
    if owners:
        return CliError("cli_use.unknown_option_of", option=_name(word), commands=", ".join(owners),
                        example=Phrase("cli_use.example", prog=parser.prog, command=owners[0], option=_name(word)))
    near = difflib.get_close_matches(name, options, n=1, cutoff=NEAR)
    if near:
        return CliError("cli_use.unknown_option_near", option=_name(word), near=near[0])
    return CliError("cli_use.unknown_option", option=_name(word), help=parser.prog)


def _check_command(parser: argparse.ArgumentParser, word: str) -> None:
    """A subcommand's name that is none of them: the nearest one, else the list."""
    commands = _subcommands(parser)
    if not commands or word in commands:
        return
    near = difflib.get_close_matches(word, list(commands), n=1, cutoff=NEAR)
    if near:
        raise CliError("cli_use.unknown_command_near", command=sanitize(word, 80, one_line=True), near=near[0],
                       prog=parser.prog)
    raise CliError("cli_use.unknown_command", command=sanitize(word, 80, one_line=True), known=", ".join(commands),
                   prog=parser.prog)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return subcommand_parsers(parser) or {}
