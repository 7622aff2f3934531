"""Every Learn screen in order: read by the `l` key, the command palette and `specview learn N`.

Each screen's module declares its `Lesson` (number, catalog slug, screen class, default numbers)
next to the screen; `lessons()` finds every one in this package, so adding a screen = one module
here and its catalog lines (`learn.<slug>.title`, `learn.<slug>.idea`, …) in texts/learn_<slug>.<lang>.toml.
Finding them imports the screens, and with them Textual (`specview learn N --json` needs no
terminal all the same: the numbers come from core functions).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any

from specview.features.learn.explain.context import RunContext
from specview.kernel.errors import CliError

if TYPE_CHECKING:
    from textual.screen import Screen

    from specview.features.learn.base import LearnScreen

LESSONS_PACKAGE = "specview.features.learn"


@dataclass(frozen=True, slots=True)
class Lesson:
    """One Learn screen: its number, catalog slug, screen class and default numbers."""

    number: int
    slug: str
    screen: type[LearnScreen]
    numbers: Callable[[str], dict[str, Any]]  # the screen's numbers at its default controls, by language
    # the same with a model given (`learn N --json --target M`), for a screen whose defaults follow the model
    model_numbers: Callable[[str, str], dict[str, Any]] | None = None  # (language, GGUF path)

    @property
    def title_key(self) -> str:
        return f"learn.{self.slug}.title"

    @property
    def idea_key(self) -> str:
        return f"learn.{self.slug}.idea"

    def make_screen(self, lang: str, run: RunContext | None = None) -> Screen[None]:
        """The screen; `run` ties it to a live decoder."""
        return self.screen(self, lang, run)


@cache
def lessons() -> tuple[Lesson, ...]:
    """Every Learn screen, by number (found once: they cannot change while specview runs)."""
    return find_lessons(LESSONS_PACKAGE)


def find_lessons(package: str) -> tuple[Lesson, ...]:
    """Every Lesson at the top level of a module of `package` (or of a package inside it), by
    number; two with one number or one slug are a mistake named at once."""
    found: dict[int, tuple[Lesson, str]] = {}
    for info in pkgutil.walk_packages(import_module(package).__path__, f"{package}."):
        for item in vars(import_module(info.name)).values():
            if not isinstance(item, Lesson) or found.get(item.number, (None, ""))[0] is item:
                continue
            for other, where in found.values():
                if item.number == other.number or item.slug == other.slug:
                    raise ValueError(f"Learn screens {where} and {info.name} share a number or a slug")
            found[item.number] = (item, info.name)
    return tuple(item for _, (item, _) in sorted(found.items()))


def lesson(number: int) -> Lesson:
    """The lesson with this number (what `specview learn N` and the index show), or a CliError
    listing the numbers there are. Code that links to a screen names it by slug (`lesson_named`):
    numbers move when a screen is added in the middle."""
    for item in lessons():
        if item.number == number:
            return item
    known = ", ".join(str(item.number) for item in lessons())
    raise CliError("learnerr.no_screen", number=number, known=known)


def lesson_named(slug: str) -> Lesson:
    """The lesson registered under `slug` (its catalog name, `learn.<slug>.*`), wherever its number
    puts it; ValueError for a slug no screen declares (a link to a screen that is gone)."""
    for item in lessons():
        if item.slug == slug:
            return item
    raise ValueError(f"no Learn screen is registered as {slug!r}")
