"""Message catalogs (zh, en): every text a user reads, keyed by id.

A language's catalog is every `texts/<area>.<lang>.toml` file merged (ui, gauges, keys, learn, …),
so each area keeps its own file; a key must be unique across the files of one language. Tables
flatten to dotted ids: `[gauge] alpha = { label = "…" }` is the text `gauge.alpha.label`.
An array is data beside the texts, not a text (the glossary's replaced variants: catalog/glossary.py).
The languages are the ones that have files (kernel/langs.py lists the same; a test checks it).
A plugin unit brings its own texts beside its module (specview/plugins/): `add_texts` joins them
to every language's catalog, once each language has them all.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache, lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Formatter
from typing import Any

FALLBACK = "en"

_ADDED: dict[str, dict[str, str]] = {}  # texts that units brought (add_texts), by language
_ADDED_FROM: set[str] = set()  # the units' files already joined ("<folder>/<stem>")


class TextsLackLanguage(ValueError):
    """A unit's texts have no file for a language, or a file that lacks an id the others have."""

    def __init__(self, lang: str, key: str | None) -> None:
        super().__init__(lang if key is None else f"{lang}: {key}")
        self.lang = lang
        self.key = key


@cache
def languages() -> tuple[str, ...]:
    """Every language with at least one catalog file."""
    folder = resources.files("specview") / "texts"
    found = {entry.name.split(".")[-2] for entry in folder.iterdir() if entry.name.count(".") == 2
             and entry.name.endswith(".toml")}
    return tuple(sorted(found))


def _flatten(data: dict[str, Any], prefix: str, into: dict[str, str], where: str) -> None:
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(value, f"{name}.", into, where)
            continue
        if isinstance(value, list):
            continue
        if name in into:
            raise KeyError(f"catalog key {name!r} is defined twice ({where})")
        into[name] = str(value)


@cache
def catalog(lang: str) -> dict[str, str]:
    """All texts of one language; unknown languages fall back to English."""
    lang = lang if lang in languages() else FALLBACK
    merged: dict[str, str] = {}
    folder = resources.files("specview") / "texts"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(f".{lang}.toml"):
            _flatten(tomllib.loads(entry.read_text(encoding="utf-8")), "", merged, entry.name)
    for key, value in _ADDED.get(lang, {}).items():
        if key in merged:
            raise KeyError(f"catalog key {key!r} is defined twice (a unit's texts)")
        merged[key] = value
    return merged


def unit_text_files(folder: Path | Traversable, stem: str) -> dict[str, Path | Traversable]:
    """A unit's catalog files beside its module: `<stem>.<lang>.toml` in `folder`, by language."""
    found = {lang: folder / f"{stem}.{lang}.toml" for lang in languages()}
    return {lang: entry for lang, entry in found.items() if entry.is_file()}


def add_texts(folder: Path | Traversable, stem: str) -> str | None:
    """Join a unit's texts (`<stem>.<lang>.toml` in `folder`, see unit_text_files) to the catalog.

    Returns the first file's name (None: the unit has no texts). Raises TextsLackLanguage when a
    language has no file or lacks an id another has, KeyError when an id is already a text, and
    tomllib's error for a file that does not parse; then nothing is added.
    """
    files = unit_text_files(folder, stem)
    if not files:
        return None
    owner = str(folder / stem)
    if owner in _ADDED_FROM:  # a second look at the same unit (a registry read again): joined once
        return next(iter(files.values())).name
    texts: dict[str, dict[str, str]] = {}
    for lang in languages():
        if lang not in files:
            raise TextsLackLanguage(lang, None)
        texts[lang] = {}
        _flatten(tomllib.loads(files[lang].read_text(encoding="utf-8")), "", texts[lang], files[lang].name)
    every = set().union(*texts.values())
    for lang, found in texts.items():
        for key in sorted(every - set(found)):
            raise TextsLackLanguage(lang, key)
        for key in found:
            if key in catalog(lang) or key in _ADDED.get(lang, {}):
                raise KeyError(key)
    for lang, found in texts.items():
        _ADDED.setdefault(lang, {}).update(found)
    _ADDED_FROM.add(owner)
    catalog.cache_clear()
    return next(iter(files.values())).name


def texts_beside(module_file: Path) -> tuple[Path, str]:
    """Where a unit module's texts are: (folder, stem) of `<stem>.<lang>.toml` beside `module_file`; a
    package's (`__init__.py`) inside its folder, named after it."""
    folder = module_file.parent
    return folder, folder.name if module_file.stem == "__init__" else module_file.stem


_UNIT_GROUP = "specview."
_OWN_LOADER = {"specview.methods"}  # a method's texts are read by its own registry (specview/methods/)
_JOINED: list[bool] = []


def join_unit_texts() -> bool:
    """Join the texts of every unit an installed `specview.*` entry point names (beside its module,
    or anywhere in its package), without importing the units: a text is found where it is rendered,
    not only after its group was read. Once per process; True the first time. A unit whose texts
    cannot join is left here in silence: its group says so, in one line, when it loads it."""
    if _JOINED:
        return False
    _JOINED.append(True)
    from importlib import metadata, util

    points = {(point.group, point.value): point for dist in metadata.distributions() for point in dist.entry_points}
    for point in points.values():
        if not point.group.startswith(_UNIT_GROUP) or point.group in _OWN_LOADER:
            continue
        try:
            spec = util.find_spec(point.module)
        except Exception:  # noqa: BLE001 - a broken plugin: its group names it when it loads
            continue
        if spec is None or not spec.origin:
            continue
        origin = Path(spec.origin)
        places = ([texts_beside(origin)] if not spec.submodule_search_locations else
                  [(found.parent, found.name.removesuffix(f".{FALLBACK}.toml"))
                   for found in origin.parent.rglob(f"*.{FALLBACK}.toml")])
        for folder, stem in places:
            try:
                add_texts(folder, stem)
            except (KeyError, TextsLackLanguage, OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
    return True


@cache
def area(name: str, lang: str) -> dict[str, str]:
    """One area file's texts alone (texts/<name>.<lang>.toml; none if it is missing), for a reader in a
    hurry that needs only its own: `specview --help` reads cli_help (about 2 ms), not every file (about 22)."""
    entry = resources.files("specview") / "texts" / f"{name}.{lang}.toml"
    found: dict[str, str] = {}
    if entry.is_file():
        _flatten(tomllib.loads(entry.read_text(encoding="utf-8")), "", found, entry.name)
    return found


def text(key: str, lang: str = FALLBACK) -> str:
    """One text by id; a missing key falls back to English, then to the key itself. A key no file
    has may be an installed unit's not loaded yet (a server kind's note in a replayed recording):
    every unit's texts join once (join_unit_texts), then the key is looked up again."""
    found = catalog(lang).get(key) or catalog(FALLBACK).get(key)
    if found is None and join_unit_texts():
        found = catalog(lang).get(key) or catalog(FALLBACK).get(key)
    return found or key


class _Blanks(dict[str, object]):
    def __missing__(self, name: str) -> str:
        return "?"


_FORMATTER = Formatter()


class Phrase:
    """A text not yet in a language: a catalog id and its fields, rendered where it is shown.

    Errors and notes made below the UI carry these, so the words are chosen in the user's
    language at the place that knows it; a field that is itself a Phrase is rendered in the same
    language.
    """

    __slots__ = ("fields", "key")

    def __init__(self, key: str, /, **fields: object) -> None:
        self.key = key
        self.fields = fields

    def render(self, lang: str = FALLBACK) -> str:
        """The text in `lang`; a key no catalog knows is shown as written (a plain text)."""
        if self.key not in catalog(FALLBACK) and self.key not in catalog(lang):
            return self.key
        return fill(self.key, lang, **self.fields)

    def __str__(self) -> str:
        return self.render(FALLBACK)

    def __repr__(self) -> str:
        return f"Phrase({self.key!r}, **{self.fields!r})"


def _renders(value: object) -> bool:
    """Whether a field's value is words still to be put in a language (a Phrase, an error)."""
    return isinstance(value, Phrase) or callable(getattr(value, "in_language", None))


def _rendered(value: object, lang: str) -> object:
    """A field's value as shown in `lang`: a Phrase, or an error that renders itself (a SpecviewError:
    the catalog imports nothing of specview, so it asks for the method), in that language."""
    if isinstance(value, Phrase):
        return value.render(lang)
    in_language = getattr(value, "in_language", None)
    if callable(in_language):
        return in_language(lang)
    return value


def fill(key: str, lang: str = FALLBACK, /, **values: object) -> str:
    """A text with `{name}` fields filled in; values are data the caller made safe to show.

    Every template a user reads is filled here, so a translator's slip never crashes a view: a
    field not given, one whose format does not fit its value (`{alpha:.2f}` given text) or one
    that is not a plain name (`{alpha.real}`, `{0}`) reads "?"; a template whose braces do not
    parse is shown as written.
    """
    return _filled(text(key, lang), _in_language(values, lang))


def fill_in(template: str, lang: str = FALLBACK, /, **values: object) -> str:
    """`fill` for a template already in hand (one read with `area`)."""
    return _filled(template, _in_language(values, lang))


def _in_language(values: dict[str, object], lang: str) -> dict[str, object]:
    """The fields as shown in `lang`: a copy only where a field renders itself (a Phrase, an error)."""
    if any(_renders(value) for value in values.values()):
        return {name: _rendered(value, lang) for name, value in values.items()}
    return values


@lru_cache(maxsize=4096)  # the catalogs' templates, parsed once (the side panel fills notes every frame)
def _parsed(template: str) -> tuple[tuple[str, str | None, str | None, str | None], ...] | None:
    try:
        return tuple(_FORMATTER.parse(template))
    except ValueError:  # an unbalanced brace
        return None


def _filled(template: str, values: Mapping[str, object]) -> str:
    """`template` with its fields filled from `values` (see `fill`)."""
    parts = _parsed(template)
    if parts is None:
        return template
    blanks = _Blanks(values)
    out = []
    for literal, name, spec, conversion in parts:
        out.append(literal)
        if name is None:
            continue
        if not name.isidentifier():  # plain names only: a template never reaches into a value's attributes
            out.append("?")
            continue
        try:
            value = _FORMATTER.convert_field(blanks[name], conversion)
            out.append(format(value, _filled(spec, values) if spec else ""))
        except (ValueError, TypeError):  # an unknown conversion, a format that does not fit the value
            out.append("?")
    return "".join(out)
