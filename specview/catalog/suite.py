"""Prompt suites as data: the shipped ones (catalog/suites/*.toml) and a user's own file (TOML or JSON).

A suite is prompts in categories (code, math, chat, …) that `specview bench --suite` runs one by one
(features/live/bench_suite.py). A user's file is untrusted: it is opened only as a regular file, its
size is checked before it is parsed (MAX_SUITE_BYTES), and its categories, prompts and prompt lengths
are bounded, so a file with a million prompts or a 100 MB prompt is one clear error naming the file
(exit 2), never a long run or a large allocation. The schema is written at the top of
catalog/suites/default.toml.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from specview.kernel.errors import SpecviewError

DEFAULT_SUITE = "default"
SCHEMA = 1
MAX_SUITE_BYTES = 256 * 1024  # the default suite is under 5 KiB; a bigger file is not read
MAX_CATEGORIES = 32
MAX_PROMPTS = 64  # per category
MAX_PROMPT_CHARS = 4000
MAX_LINE_CHARS = 200  # a suite's name and licence
SELECTOR_KINDS = ("llama:", "url:", "replay:")  # backends/selector.py's kinds
CATEGORY_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
# the categories whose names the catalog has, in zh and en (texts/suite.*.toml: suite.category.<id>)
KNOWN_CATEGORIES = ("code", "math", "chat", "summarisation", "extraction", "translation", "creative", "chinese")


class SuiteError(SpecviewError):
    """A suite file or name that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True, slots=True)
class Category:
    id: str
    prompts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Suite:
    """A suite as read: its name, its prompts' licence, where it came from, and its categories."""

    name: str
    license: str
    source: str  # "shipped default" or the file's path as given
    categories: tuple[Category, ...]

    def prompts(self) -> list[tuple[str, str]]:
        """Every (category id, prompt), in the file's order."""
        return [(cat.id, prompt) for cat in self.categories for prompt in cat.prompts]


def shipped_suites() -> tuple[str, ...]:
    """The names of the suites in the package."""
    folder = resources.files("specview") / "catalog" / "suites"
    return tuple(sorted(e.name.removesuffix(".toml") for e in folder.iterdir() if e.name.endswith(".toml")))


@cache
def _shipped(name: str) -> Suite:
    import tomllib

    entry = resources.files("specview") / "catalog" / "suites" / f"{name}.toml"
    return parse_suite(tomllib.loads(entry.read_text(encoding="utf-8")), f"shipped suite {name}")


def load_suite(name_or_path: str | None) -> Suite:
    """The shipped suite of that name (None: the default), else the suite in that file."""
    name = name_or_path or DEFAULT_SUITE
    if name in shipped_suites():
        return _shipped(name)
    if name.startswith(SELECTOR_KINDS):  # `--suite llama:T.gguf+ngram`: --suite took the run's selector
        raise SuiteError("suite.err.selector", name=name)
    path = Path(name)
    if "/" not in name and not name.endswith((".toml", ".json")) and not path.exists():
        raise SuiteError("suite.err.unknown", name=name, known=", ".join(shipped_suites()))
    return parse_suite(_read_file(path), str(path))


def _read_file(path: Path) -> Any:
    """A user's suite file, size-checked before it is parsed (boundary/safe_files.py: regular files only),
    and not through a link (a shared folder's `suite.toml -> ~/.ssh/id_ed25519` is refused, not quoted)."""
    import os
    import stat

    from specview.boundary.safe_files import Refused
    from specview.kernel.os_reason import os_reason

    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise Refused(path, "is", "link")
    except OSError as exc:
        raise SuiteError("catalogerr.toml.cannot_read", path=path, reason=os_reason(exc)) from None
    if path.suffix == ".json":
        return _read_json(path)
    from specview.catalog.small_files import read_toml

    return read_toml(path, MAX_SUITE_BYTES, SuiteError)


def _read_json(path: Path) -> Any:
    from specview.catalog.small_files import read_small

    raw = read_small(path, MAX_SUITE_BYTES, SuiteError)
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError; so is a huge number
        raise SuiteError("suite.err.not_json", path=path, kind=type(exc).__name__) from None


def _line(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_LINE_CHARS or "\n" in value:
        raise SuiteError("suite.err.line", where=where, key=key, max=MAX_LINE_CHARS)
    return value


def parse_suite(data: Any, where: str) -> Suite:
    """A suite from parsed TOML/JSON, every bound checked; SuiteError naming `where` otherwise."""
    if not isinstance(data, dict):
        raise SuiteError("suite.err.not_table", where=where)
    if data.get("schema") != SCHEMA or isinstance(data.get("schema"), bool):
        raise SuiteError("suite.err.schema", where=where, schema=SCHEMA)
    name, licence = _line(data, "name", where), _line(data, "license", where)
    raw = data.get("categories")
    if not isinstance(raw, list) or not raw:
        raise SuiteError("suite.err.no_categories", where=where)
    if len(raw) > MAX_CATEGORIES:
        raise SuiteError("suite.err.too_many_categories", where=where, count=len(raw), max=MAX_CATEGORIES)
    categories: list[Category] = []
    for index, cat in enumerate(raw, 1):
        categories.append(_category(cat, f"{where}: categories[{index}]"))
    ids = [c.id for c in categories]
    if len(set(ids)) != len(ids):
        raise SuiteError("suite.err.duplicate", where=where)
    return Suite(name, licence, where, tuple(categories))


def _category(data: Any, where: str) -> Category:
    if not isinstance(data, dict):
        raise SuiteError("suite.err.not_table", where=where)
    cat_id = data.get("id")
    if not isinstance(cat_id, str) or not CATEGORY_ID.fullmatch(cat_id):
        raise SuiteError("suite.err.category_id", where=where)
    prompts = data.get("prompts")
    if not isinstance(prompts, list) or not prompts:
        raise SuiteError("suite.err.no_prompts", where=where, id=cat_id)
    if len(prompts) > MAX_PROMPTS:
        raise SuiteError("suite.err.too_many_prompts", where=where, id=cat_id, count=len(prompts), max=MAX_PROMPTS)
    for number, prompt in enumerate(prompts, 1):
        if not isinstance(prompt, str) or not prompt.strip() or len(prompt) > MAX_PROMPT_CHARS:
            raise SuiteError("suite.err.prompt", where=where, id=cat_id, number=number, max=MAX_PROMPT_CHARS)
    return Category(cat_id, tuple(prompts))
