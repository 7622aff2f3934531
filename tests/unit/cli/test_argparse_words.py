"""argparse's own error words in the user's language (cli/argparse_words.py): every template argparse
has is either said through a catalog id (zh and en, the English argparse's own) or set aside here as
no user's to read; nested messages are said in one language; what is no template is shown as is."""

from __future__ import annotations

import argparse
import ast
import gettext
import inspect
import pickle
import re
from typing import Any

import pytest

from specview.cli.argparse_words import WORDS, Said, in_language, kept_words
from specview.cli.argtypes import float_in, int_in, template_name, tree_option
from specview.compat.stdlib_compat import argparse_translators
from specview.texts.catalog import area

CJK = re.compile(r"[\u4e00-\u9fff]")
# argparse's templates a user never reads from us: a parser built wrong (the code's bug, caught by
# tests before a user runs it), the error line's frame (Parser.error writes its own) and the help's
# words (cli/help_format.py says them through cli_help ids)
NOT_THE_USERS = frozenset({
    ".__call__() not defined", "conflicting subparser: %s", "conflicting subparser alias: %s",
    "cannot merge actions - two groups are named %r", "'required' is an invalid argument for positionals",
    "invalid option string %(option)r: must start with a character %(prefix_chars)r",
    "dest= is required for options like %r", "invalid conflict_resolution value: %r",
    "conflicting option string: %s", "conflicting option strings: %s",
    "mutually exclusive arguments must be optional", "cannot have multiple subparser arguments",
    "%r is not callable",
    "%(prog)s: error: %(message)s\n",
    "usage: ", "positional arguments", "options", "show this help message and exit",
    "show program's version number and exit",
})


def translators() -> tuple[object, object]:
    """argparse's `_` and `ngettext` as they are now (specview/compat: argparse keeps them private)."""
    found = argparse_translators()
    assert found is not None, "argparse no longer says its messages through `_` and `ngettext`"
    return found


def argparse_says(template: str | None) -> Any:
    """What argparse's `_` makes of `template` now (a Said while kept_words() reads argparse's words)."""
    translate, _ = translators()
    assert callable(translate)
    return translate(template)


def argparse_templates() -> set[str]:
    """Every literal argparse passes to `_` or `ngettext`, read from its own source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(inspect.getsource(argparse))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "ngettext"):
            found.update(arg.value for arg in node.args[:2]
                         if isinstance(arg, ast.Constant) and isinstance(arg.value, str))
    return found


def test_every_argparse_template_is_said_or_set_aside() -> None:
    templates = argparse_templates()
    assert "the following arguments are required: %s" in templates  # the walk finds them
    assert templates - NOT_THE_USERS - set(WORDS) == set(), "a template argparse has that we neither say nor set aside"
    assert set(WORDS) - templates == set(), "a template we say that this argparse does not have"


def _sample(template: str) -> dict[str, str] | tuple[str, ...]:
    names = re.findall(r"%\((\w+)\)", template)
    if names:
        return {name: f"<{name}>" for name in names}
    return tuple(f"<{i}>" for i in range(template.count("%") - 2 * template.count("%%")))


@pytest.mark.parametrize("template", sorted(WORDS))
def test_each_template_has_zh_and_en_and_the_english_is_argparses(template: str) -> None:
    key, _ = WORDS[template]
    en, zh = area("cli_errors", "en"), area("cli_errors", "zh")
    assert key in en and key in zh
    assert CJK.search(zh[key]), zh[key]
    assert set(re.findall(r"{(\w+)}", zh[key])) == set(re.findall(r"{(\w+)}", en[key]))
    values = _sample(template)
    with kept_words():
        made = argparse_says(template) % values if values else argparse_says(template)
    assert made.render("en") == template % values  # English byte for byte as argparse writes it
    said = made.render("zh")
    assert CJK.search(said) and all(value in said for value in (values.values() if isinstance(values, dict)
                                                                 else values)), said


def _error_of(parser: argparse.ArgumentParser, words: list[str]) -> str:
    """The error `words` make, said in zh: put in words while the parser reads, as argparse does."""
    with kept_words():
        with pytest.raises(argparse.ArgumentError) as caught:
            parser.parse_args(words)
        message = str(caught.value)
    return in_language(message, "zh")


def test_a_reason_inside_argparse_words_is_said_in_the_same_language() -> None:
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--server", choices=["auto", "vllm"])
    parser.add_argument("--gamma", type=int_in(1, 32, "--gamma"))
    parser.add_argument("--fps", type=float_in(1.0, 60.0, "--fps"))
    parser.add_argument("--tree", type=tree_option)
    parser.add_argument("--chat-template", type=template_name)
    assert _error_of(parser, ["--server", "nope"]) == "参数 --server：无效的选择：'nope'（可选：'auto', 'vllm'）"
    assert _error_of(parser, ["--gamma", "x"]) == "参数 --gamma：--gamma 必须是整数，给出的是 'x'"
    assert _error_of(parser, ["--gamma", "99"]) == "参数 --gamma：--gamma 必须在 1 到 32 之间，给出的是 99"
    assert _error_of(parser, ["--fps", "x"]) == "参数 --fps：--fps 必须是数字，给出的是 'x'"
    assert _error_of(parser, ["--gamma"]) == "参数 --gamma：需要一个值"
    assert _error_of(parser, ["--tree", "0x3"]) == "参数 --tree：--tree 0x3：宽度和深度都必须至少为 1"
    assert _error_of(parser, ["--chat-template", "a b"]).startswith("参数 --chat-template：--chat-template 必须是")


def test_a_count_of_values_says_the_count() -> None:
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--pair", nargs=2)
    parser.add_argument("--one", nargs=1)
    assert _error_of(parser, ["--pair", "a"]) == "参数 --pair：需要 2 个值"
    assert _error_of(parser, ["--one"]) == "参数 --one：需要 1 个值"


def test_what_is_no_template_is_shown_as_is_and_never_fails() -> None:
    assert in_language("a line argparse did not make", "zh") == "a line argparse did not make"
    with kept_words():
        unknown = argparse_says("a template argparse may add one day: %s") % "x"
        misfit = argparse_says("unrecognized arguments: %s") % {"a": 1}  # a dict for a %s
        title = argparse_says(None)  # a group without a description
    assert in_language(unknown, "zh") == "a template argparse may add one day: x"
    assert in_language(misfit, "zh") == "unrecognized arguments: {'a': 1}"
    assert title is None


def test_a_message_reformatted_as_plain_text_is_still_found() -> None:
    """argparse writes an ArgumentError with no argument name as '%(message)s' % …: a plain str."""
    with kept_words():
        made = argparse_says("expected one argument")
        plain = "".join(["%(message)s" % {"message": made}, ""])  # noqa: UP031 - argparse's own formatting
    assert type(plain) is str and in_language(plain, "zh") == "需要一个值"


def test_words_sent_elsewhere_are_their_english() -> None:
    with kept_words():
        made = argparse_says("unrecognized arguments: %s") % "x y"
    copied = pickle.loads(pickle.dumps(made))
    assert type(copied) is str and copied == "unrecognized arguments: x y"


def test_argparse_is_left_as_it_was_after_reading_even_nested() -> None:
    with kept_words():
        inside = translators()
        with kept_words():
            assert translators() == inside
        assert translators() == inside
    assert translators() == (gettext.gettext, gettext.ngettext)
    assert not isinstance(argparse_says("options"), Said)
