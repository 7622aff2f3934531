"""`--help` in the user's language: help texts are catalog ids, rendered when help is shown.

Every `help=`, `description=`, `epilog=` and group title of the command line is a catalog id
(texts/cli_help*.toml), or a `Help(id, field=…)` where the text has fields. The formatter puts
them in the language `--lang`, the config or SPECVIEW_LANG chooses (cli/error_lang.py), decided
only when help is shown: a run that shows none reads neither the config nor a catalog for it.
A help text is an argparse template: `%(choices)s` expands, a literal % is written %%.
Only the cli_help files are read (about 2 ms), not the whole catalog of a language (about 22).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable

from specview.cli.cell_wrap import cells, wrap
from specview.compat.stdlib_compat import HookedHelpFormatter, MutuallyExclusiveGroup
from specview.kernel.langs import DEFAULT_LANG

AREAS = ("cli_help",)  # the texts/<area>.<lang>.toml files help reads
# argparse's own words: -h/--help and --version get ours through Parser.add_argument; the two
# groups every parser has are titled in English inside ArgumentParser.__init__, and no public
# hook renames them, so they are put in the language by their title here, as they are shown.
HELP_ID, VERSION_ID, USAGE_ID = "cli_help.argparse.help", "cli_help.argparse.version", "cli_help.argparse.usage"
HEADING_ID = "cli_help.argparse.heading"  # a group's heading line: argparse writes "%s:" itself
ARGPARSE_TITLES = {"positional arguments": "cli_help.argparse.positionals", "options": "cli_help.argparse.options"}

Lang = str | Callable[[], str]  # a language, or how to find it when help is shown


class Help(str):
    """A help text's catalog id (the string itself, so argparse takes it as any help) and its fields."""

    fields: dict[str, object]

    def __new__(cls, key: str, /, **fields: object) -> Help:
        made = super().__new__(cls, key)
        made.fields = fields
        return made


def help_text(value: str, lang: str) -> str:
    """A help id (or Help) in `lang`; an id of no cli_help file is looked up in the whole catalog, and words
    that are no id are shown as written."""
    from specview.texts.catalog import area, fill_in, text

    template = next((area(name, each)[value] for each in dict.fromkeys((lang, "en")) for name in AREAS
                     if value in area(name, each)), None)  # English only for a text zh lacks
    if template is None:
        template = text(value, lang)
    fields = {name: help_text(field, lang) if isinstance(field, Help) else field
              for name, field in getattr(value, "fields", {}).items()}
    return fill_in(template, lang, **fields)


class HelpFormatter(HookedHelpFormatter):
    """argparse's formatter with texts from the catalog, wrapped by terminal cells (cli/cell_wrap.py)."""

    def format_section(self, written: str, heading: str | None, indent: int) -> str:
        """A section whose heading ends as the language ends one ("选项：", not argparse's "选项:")."""
        if not written or heading is None or heading is argparse.SUPPRESS:
            return written
        blanks = " " * indent
        plain = f"\n{blanks}{heading}:\n"  # argparse's '%*s%s:\n', after the newline before a section
        if not written.startswith(plain):
            return written
        ended = help_text(Help(HEADING_ID, heading=heading), self.lang)
        return f"\n{blanks}{ended}\n{written[len(plain):]}"

    def __init__(self, prog: str, *, lang: Lang = DEFAULT_LANG, **options: int | None) -> None:
        super().__init__(prog, **options)  # type: ignore[arg-type]
        self._lang_of = lang
        self._usage_prefix: str | None = None

    @property
    def lang(self) -> str:
        if callable(self._lang_of):
            self._lang_of = self._lang_of()
        return self._lang_of

    def _say(self, value: str | None) -> str | None:
        if not value or value is argparse.SUPPRESS:
            return value
        return help_text(ARGPARSE_TITLES.get(value, value), self.lang)

    def add_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                  groups: Iterable[MutuallyExclusiveGroup], prefix: str | None = None) -> None:
        """argparse lines the usage up under its prefix by counting characters: it is given blanks as wide as
        the prefix in cells, put back in `format_help`."""
        if prefix is None:
            self._usage_prefix = help_text(USAGE_ID, self.lang)
            prefix = " " * cells(self._usage_prefix)
        super().add_usage(usage, actions, groups, prefix)

    def format_help(self) -> str:
        out = super().format_help()
        if self._usage_prefix is not None:
            blanks = " " * cells(self._usage_prefix)
            if out.startswith(blanks):
                out = self._usage_prefix + out[len(blanks):]
        return out

    def start_section(self, heading: str | None) -> None:
        super().start_section(self._say(heading))

    def add_text(self, text: str | None) -> None:
        super().add_text(self._say(text))

    def help_string(self, action: argparse.Action) -> str:
        return self._say(action.help) or ""

    def split_lines(self, text: str, width: int) -> list[str]:
        return wrap(text, width)

    def fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap(text, width - cells(indent)))
