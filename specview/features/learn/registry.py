"""Every Learn screen in order: read by the `l` key, the command palette and `specview learn N`.

Each screen's module declares its `Lesson` (number, catalog slug, screen class, default numbers,
and the checks its test runs) next to the screen; the Lessons are the units of the plugin
surface's group `specview.lessons` (specview/plugins/), which for specview's own names this
package: adding a screen = one module here and its catalog lines (`learn.<slug>.title`,
`learn.<slug>.idea`, …), in texts/learn_<slug>.<lang>.toml or beside the module (`<module>.<lang>.toml`). A plugin's
screen is a Lesson its package registers the same way. Finding them imports the screens, and
with them Textual (`specview learn N --json` needs no terminal all the same: the numbers come
from core functions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from specview.features.learn.explain.context import RunContext
from specview.kernel.errors import CliError
from specview.plugins.surface import Found, Group, package_units, units
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from textual.screen import Screen

    from specview.features.learn.base import LearnScreen
    from specview.features.learn.checks import LessonChecks

@dataclass(frozen=True, slots=True)
class Lesson:
    """One Learn screen: its number, catalog slug, screen class and default numbers."""

    number: int
    slug: str
    screen: type[LearnScreen]
    numbers: Callable[[str], dict[str, Any]]  # the screen's numbers at its default controls, by language
    # the same with a model given (`learn N --json --target M`), for a screen whose defaults follow the model
    model_numbers: Callable[[str, str], dict[str, Any]] | None = None  # (language, GGUF path)
    # what the screen shows with a preset chosen (`learn N --json --preset ID`), for a screen that takes one
    preset_numbers: Callable[[str, str], dict[str, Any]] | None = None  # (language, preset id)
    # what its test checks, worked out independently of the screen (features/learn/checks.py)
    checks: LessonChecks | None = None

    @property
    def title_key(self) -> str:
        return f"learn.{self.slug}.title"

    @property
    def idea_key(self) -> str:
        return f"learn.{self.slug}.idea"

    def make_screen(self, lang: str, run: RunContext | None = None) -> Screen[None]:
        """The screen; `run` ties it to a live decoder."""
        return self.screen(self, lang, run)


def _refuse(item: Lesson, before: list[Found[Lesson]]) -> Phrase | None:
    """A number another screen took first."""
    for other in before:
        if other.unit.number == item.number:
            return Phrase("plugins.lesson_number", number=item.number, other=repr(other.unit.slug), there=other.file)
    return None


LESSONS: Group[Lesson] = Group("specview.lessons", Lesson, lambda item: item.slug, _refuse)


@cache
def lessons() -> tuple[Lesson, ...]:
    """Every Learn screen, by number (found once: they cannot change while specview runs)."""
    return tuple(sorted(units(LESSONS), key=lambda item: item.number))


def find_lessons(package: str) -> tuple[Lesson, ...]:
    """Every Lesson at the top level of a module of `package` (or of a package inside it), by
    number, as the surface finds them in a package an entry point names; one whose number or slug
    another took first is left out with one line naming both."""
    return tuple(sorted((found.unit for found in package_units(LESSONS, package)), key=lambda item: item.number))


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
