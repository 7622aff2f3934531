"""The preset methods specview knows: units of the plugin surface's group `specview.methods`.

How it works:

- A **method unit** is one folder: `method.toml` says what the method is (`id`, its Learn `school`, its
  `[acceptance]` model with the source that describes it, and the `[[claims]]`: the published figures
  about it that presets cite), and `texts.<lang>.toml`, one per language specview speaks, holds its
  words (`school = …`, and `[claims]` with each claim's text by id).
- Units are found like every other extension's (specview/plugins/surface.py), through the entry-point
  group **`specview.methods`**; only how a unit is read differs (the group's `read`): an entry point
  names a module or package, and its folder is one unit when it holds `method.toml`, else a collection
  whose subfolders holding a `method.toml` are units, read in name order. specview's own methods are the
  collection `specview.methods` (pyproject.toml: `builtin = "specview.methods"`), so a built-in method is
  added by adding its folder, with no list to edit; a third-party package declares its own entry point.
  Built-ins come first, then plugins, as in every group.
- **Bad units never stop specview**: a module that does not import, a folder whose `method.toml` cannot
  be read or lacks a key, an id (or a claim id) already taken, a claim that does not parse: that unit is
  left out, with one line naming it and its file. Texts missing a language (a file, or a key in it): one
  line naming the unit and the file, and the English words are shown instead. Each line is said once,
  through specview/plugins/problems.py, as every group's are.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import ModuleType
from typing import Any

from specview.boundary.text import sanitize, shown
from specview.catalog.claims import Claim, parse_claim, shared_claims
from specview.kernel.errors import SpecviewError
from specview.methods.acceptance import MODELS, AcceptanceModel
from specview.plugins.problems import report
from specview.plugins.surface import Found, Group, units
from specview.texts.catalog import FALLBACK, Phrase, languages

GROUP = "specview.methods"
UNIT_FILE = "method.toml"
MAX_UNIT_BYTES = 256 * 1024  # a unit's file is a few KiB
ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")  # a method's id: a preset names it, screens show it


@dataclass(frozen=True, slots=True)
class Method:
    """One preset method: its Learn school, its acceptance model and source, its claims and words."""

    id: str
    school: str
    acceptance: str  # a key of acceptance.MODELS
    acceptance_source: tuple[str, str]  # (title, url) of what describes the model for this method
    claims: tuple[Claim, ...]
    school_words: dict[str, str]  # language → the school as the Learn screens name it
    origin: str  # the unit's method.toml, for messages

    @property
    def model(self) -> AcceptanceModel:
        """The acceptance model a preset of this method follows."""
        return MODELS[self.acceptance]

    def school_in(self, lang: str) -> str:
        """The school in `lang`, else in English."""
        return self.school_words.get(lang) or self.school_words[FALLBACK]


class UnitError(Exception):
    """A unit that cannot be used: the line that says why."""

    def __init__(self, phrase: Phrase) -> None:
        super().__init__(phrase.key)
        self.phrase = phrase


def read_units(module: ModuleType) -> Iterator[Found[Method]]:
    """The method units of the folder an entry point names: it, or its subfolders that are units.
    A unit that cannot be read is one line (plugins/problems.py) and left out."""
    for folder in _units(_folder(module)):
        try:
            method = _read_unit(folder)
        except UnitError as exc:
            report(exc.phrase)
            continue
        yield Found(method, module.__name__, method.origin)


def claim_taken(method: Method, before: list[Found[Method]]) -> Phrase | None:
    """The reason to leave out a unit whose claim (by id) another unit, or texts/claims.toml, has."""
    claimed = dict.fromkeys(shared_claims(), "texts/claims.toml")
    claimed.update((claim.id, found.file) for found in before for claim in found.unit.claims)
    ids = [claim.id for claim in method.claims]
    for k, cid in enumerate(ids):
        if cid in claimed or cid in ids[:k]:
            return Phrase("methoderr.claim_taken", claim=cid, first=claimed.get(cid, method.origin))
    return None


METHODS: Group[Method] = Group(GROUP, Method, lambda method: method.id, refuse=claim_taken, read=read_units)


def methods() -> dict[str, Method]:
    """Every usable method by id: built-ins first, then plugins (found once, through the plugin surface)."""
    return {method.id: method for method in units(METHODS)}


def _folder(module: ModuleType) -> Traversable:
    """The folder of a unit or a collection: a package's own, or the one a plain module is in."""
    if hasattr(module, "__path__"):
        return resources.files(module)
    return Path(str(module.__file__)).parent


def _units(root: Traversable) -> list[Traversable]:
    """`root` itself when it is a unit, else its subfolders that are, by name."""
    if root.joinpath(UNIT_FILE).is_file():
        return [root]
    return sorted((entry for entry in root.iterdir() if entry.is_dir() and entry.joinpath(UNIT_FILE).is_file()),
                  key=lambda entry: entry.name)


def _toml(file: Traversable, unit: str) -> dict[str, Any]:
    try:
        raw = file.read_bytes()
        if len(raw) > MAX_UNIT_BYTES:
            raise ValueError(f"larger than {MAX_UNIT_BYTES // 1024} KiB")
        return tomllib.loads(raw.decode("utf-8"))
    except (OSError, ValueError) as exc:  # TOMLDecodeError and UnicodeDecodeError are ValueErrors
        raise UnitError(Phrase("methoderr.unreadable", unit=unit, file=str(file), reason=exc)) from None


def _string(data: dict[str, Any], key: str, unit: str, file: Traversable) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise UnitError(Phrase("methoderr.key", unit=unit, file=str(file), key=key))
    return value


def _read_unit(folder: Traversable) -> Method:
    """One unit, or UnitError; a language its texts lack is one line (English shown)."""
    file = folder.joinpath(UNIT_FILE)
    data = _toml(file, folder.name)
    unit = _string(data, "id", sanitize(folder.name, 80, one_line=True), file)
    if not ID.fullmatch(unit):
        raise UnitError(Phrase("methoderr.key", unit=shown(unit), file=str(file), key="id"))
    acceptance = data.get("acceptance")
    if not isinstance(acceptance, dict):
        raise UnitError(Phrase("methoderr.key", unit=unit, file=str(file), key="acceptance"))
    model = _string(acceptance, "model", unit, file)
    if model not in MODELS:
        raise UnitError(Phrase("methoderr.model", unit=unit, file=str(file), model=model, known=", ".join(MODELS)))
    source = (_string(acceptance, "source", unit, file), _string(acceptance, "url", unit, file))
    words = _words(folder, unit)
    school_words = {lang: w["school"] for lang, w in words.items() if isinstance(w.get("school"), str)}
    if FALLBACK not in school_words:
        raise UnitError(Phrase("methoderr.key", unit=unit, file=str(folder.joinpath(f"texts.{FALLBACK}.toml")),
                               key="school"))
    listed = data.get("claims", [])
    if not isinstance(listed, list):
        raise UnitError(Phrase("methoderr.key", unit=unit, file=str(file), key="claims"))
    claims = []
    for i, entry in enumerate(listed):
        if not isinstance(entry, dict):
            raise UnitError(Phrase("methoderr.key", unit=unit, file=str(file), key=f"claims[{i}]"))
        cid = str(entry.get("id", ""))
        texts = {lang: _claim_texts(w).get(cid) for lang, w in words.items()}
        try:
            claims.append(parse_claim(entry | {"text": texts.get(FALLBACK), "text_zh": texts.get("zh") or ""},
                                      f"{file} claims[{i}]"))
        except SpecviewError as exc:
            raise UnitError(Phrase("methoderr.claim", unit=unit, error=exc)) from None
    _check_keys(words, school_words, claims, unit, folder)
    return Method(unit, _string(data, "school", unit, file), model, source, tuple(claims), school_words, str(file))


def _words(folder: Traversable, unit: str) -> dict[str, dict[str, Any]]:
    """Each language's texts file of the unit; one missing is a line (English, missing, is an error)."""
    words: dict[str, dict[str, Any]] = {}
    for lang in languages():
        file = folder.joinpath(f"texts.{lang}.toml")
        if file.is_file():
            words[lang] = _toml(file, unit)
        elif lang == FALLBACK:
            raise UnitError(Phrase("methoderr.no_texts", unit=unit, file=str(file)))
        else:
            report(Phrase("methoderr.no_texts", unit=unit, file=str(file)))
    return words


def _check_keys(words: dict[str, dict[str, Any]], school_words: dict[str, str], claims: list[Claim], unit: str,
                folder: Traversable) -> None:
    """A language file that lacks the school or a claim's text: one line naming it (English shown)."""
    for lang, texts in words.items():
        said = _claim_texts(texts)
        missing = [] if lang in school_words else ["school"]
        missing += [f"claims.{c.id}" for c in claims if not isinstance(said.get(c.id), str)]
        if missing:
            report(Phrase("methoderr.texts_lack", unit=unit, file=str(folder.joinpath(f"texts.{lang}.toml")),
                                   keys=", ".join(missing)))


def _claim_texts(texts: dict[str, Any]) -> dict[str, Any]:
    """A texts file's `[claims]` table (none when it has none, or not a table)."""
    table = texts.get("claims")
    return table if isinstance(table, dict) else {}
