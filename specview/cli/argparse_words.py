"""argparse's own error words in the user's language: each message keeps the template it was made from.

argparse writes every message through gettext (`_('invalid choice: %(value)r …') % args`, `ngettext`).
While one of our parsers reads a command line (`kept_words`), argparse's `_` and `ngettext` are
wrapped so that what they return is `Said`: the English text as argparse made it (a str, so argparse
handles it as before), still knowing its template and its values. `in_language` then says it with the
template's catalog id (`WORDS`) and the same values, rendered first where a value is words too (an
`argument X: …` around a type's reason). Why this and not matching the finished English line: the
template is the one argparse used, taken at run time, and the values are the ones it put in, so
nothing is parsed back out of a line whose values may hold any words (a choice named "required: x").
`WORDS` is keyed by argparse's templates; a test walks argparse's source and fails for a template
that is neither here nor set aside as not the user's, so a Python that rewords one is caught there,
and at run time a template that is no key, or a message made some other way, is shown as argparse
wrote it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from specview.compat.stdlib_compat import argparse_translators, set_argparse_translators

# argparse's conversions: `%s`, `%(name)r`, `%%` (flags and widths are allowed though argparse has none)
_CONVERSION = r"%(?:\((?P<name>[^)]*)\))?(?P<spec>[-#0 +]*\d*(?:\.\d+)?)(?P<conv>[diouxXeEfFgGcrsa%])"


def _word(key: str, *positional: str) -> tuple[str, tuple[str, ...]]:
    """A template's catalog id, and the names its `%s` fields get there (in order; `%(name)s` keep theirs).
    A plain tuple, not a NamedTuple: making that class would cost every `specview` start about 0.1 ms."""
    return key, positional


_ID = "cli_errors.argparse."
WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "argument %(argument_name)s: %(message)s": _word(_ID + "argument"),
    "invalid choice: %(value)r (choose from %(choices)s)": _word(_ID + "invalid_choice"),
    "invalid %(type)s value: %(value)r": _word(_ID + "invalid_value"),
    "the following arguments are required: %s": _word(_ID + "required", "names"),
    "one of the arguments %s is required": _word(_ID + "one_required", "names"),
    "not allowed with argument %s": _word(_ID + "not_allowed_with", "other"),
    "unrecognized arguments: %s": _word(_ID + "unrecognized", "words"),
    "ambiguous option: %(option)s could match %(matches)s": _word(_ID + "ambiguous"),
    "unexpected option string: %s": _word(_ID + "unexpected_option", "option"),
    "ignored explicit argument %r": _word(_ID + "ignored_explicit", "value"),
    "expected one argument": _word(_ID + "expected_one"),
    "expected at most one argument": _word(_ID + "expected_at_most_one"),
    "expected at least one argument": _word(_ID + "expected_at_least_one"),
    "expected %s argument": _word(_ID + "expected_count_one", "count"),  # ngettext's two forms
    "expected %s arguments": _word(_ID + "expected_count", "count"),
    "unknown parser %(parser_name)r (choices: %(choices)s)": _word(_ID + "unknown_parser"),
    "can't open '%(filename)s': %(error)s": _word(_ID + "cannot_open"),
    'argument "-" with mode %r': _word(_ID + "dash_mode", "mode"),
}


class Said(str):
    """English words that can still be said in another language (`render`)."""

    render: Callable[[str], str]

    def __new__(cls, english: str, render: Callable[[str], str]) -> Said:
        made = super().__new__(cls, english)
        made.render = render
        return made

    def __str__(self) -> str:
        return self  # str() keeps it: argparse takes a type's reason as `str(err)`

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str.__str__(self),)  # copied or sent to another process: the English words alone


def said(phrase: Any) -> Said:
    """A Phrase (texts/catalog.py) as words argparse carries: an argparse type's reason."""
    return Said(phrase.render("en"), phrase.render)


class _Template(Said):
    """What the wrapped `_` returns: argparse's template (its msgid kept for the catalog), and `%`
    that keeps the values."""

    msgid: str

    def __new__(cls, text: str, msgid: str) -> _Template:
        made = str.__new__(cls, text)
        made.render = lambda lang: _rendered(msgid, None, text, lang)
        made.msgid = msgid
        _recent.append(made)
        return made

    def __mod__(self, values: Any) -> Said:
        english = str.__mod__(self, values)
        made = Said(english, lambda lang: _rendered(self.msgid, values, english, lang))
        _recent.append(made)
        return made


# the last messages made, for one that reaches `error` re-formatted (`'%(message)s' % …`, a plain str)
_recent: deque[Said] = deque(maxlen=32)
_depth = 0


def _rendered(msgid: str, values: Any, english: str, lang: str) -> str:
    """`msgid % values` in `lang` with its catalog id; as argparse wrote it when it has none."""
    word = WORDS.get(msgid)
    if word is None:
        return english
    key, positional = word
    try:
        fields = _fields(msgid, values, positional, lang)
    except (KeyError, IndexError, StopIteration, TypeError, ValueError):  # values that do not fit: said as argparse did
        return english
    from specview.texts.catalog import fill

    return fill(key, lang, **fields)


def _fields(msgid: str, values: Any, positional_names: tuple[str, ...], lang: str) -> dict[str, str]:
    """The template's fields as argparse would write them, a value that is words said in `lang` first."""
    positional = iter(()) if values is None or isinstance(values, Mapping) else iter(
        values if isinstance(values, tuple) else (values,))
    names = iter(positional_names)
    fields: dict[str, str] = {}
    for match in re.finditer(_CONVERSION, msgid):
        if match["conv"] == "%":
            continue
        name = match["name"]
        value = values[name] if name is not None else next(positional)
        if isinstance(value, Said):
            value = value.render(lang)
        fields[name if name is not None else next(names)] = f"%{match['spec']}{match['conv']}" % (value,)
    return fields


def in_language(message: str, lang: str) -> str:
    """An error message argparse made, in `lang`; one it did not make through its templates, as is."""
    if not isinstance(message, Said):
        message = next((made for made in reversed(_recent) if made == message), message)
    return message.render(lang) if isinstance(message, Said) else message


@contextmanager
def kept_words() -> Iterator[None]:
    """argparse's `_` and `ngettext` wrapped while a command line is read (nested reads: once, outermost).
    Only then: other users of argparse in the process (pytest) see argparse as it is. An argparse
    without these names is left alone (its messages are then shown as it writes them)."""
    global _depth
    translators = argparse_translators() if _depth == 0 else None
    if translators is not None:
        gettext, ngettext = translators
        set_argparse_translators(_kept(gettext), _kept_plural(ngettext))
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if translators is not None:
            set_argparse_translators(*translators)


def _kept(gettext: Callable[[str], str]) -> Callable[[Any], Any]:
    def kept(msgid: Any) -> Any:  # argparse passes a group's title too, which may be None
        return _Template(gettext(msgid), msgid) if isinstance(msgid, str) else gettext(msgid)

    return kept


def _kept_plural(ngettext: Callable[[str, str, int], str]) -> Callable[[str, str, int], str]:
    def kept_plural(one: str, many: str, n: int) -> str:
        return _Template(ngettext(one, many, n), one if n == 1 else many)  # gettext's own rule for English

    return kept_plural
