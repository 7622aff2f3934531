"""The language of the CLI's error line: the one the live view would use, found without failing again.

`--lang` if the command line parsed, else the `--lang` word of the raw command line (an error
raised while parsing), else the config's language (the file or SPECVIEW_LANG), else English.
Reading the config here must never raise: the line is already an error's.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from specview.kernel.langs import DEFAULT_LANG, LANGS


def _from_argv(argv: Sequence[str]) -> str | None:
    """The value of the last `--lang X` / `--lang=X` before `--` (the later one wins, as in argparse)."""
    found = None
    for i, word in enumerate(argv):
        if word == "--":  # a served command line (specview serve -- …) is not ours
            break
        if word == "--lang" and i + 1 < len(argv):
            found = argv[i + 1]
        elif word.startswith("--lang="):
            found = word.removeprefix("--lang=")
    return found


def error_lang(args: argparse.Namespace | None, argv: Sequence[str]) -> str:
    """The language to say an error in (one of LANGS)."""
    chosen = getattr(args, "lang", None) if args is not None else _from_argv(argv)
    if chosen is None:
        try:
            from specview.catalog.config import load_config

            chosen = load_config().lang
        except Exception:  # noqa: BLE001 - a config that cannot be read: the error is said in English
            chosen = None
    return chosen if chosen in LANGS else DEFAULT_LANG
