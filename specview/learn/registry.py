"""Every Learn screen in order: read by the `l` key, the command palette and `specview learn N`.

Importing this module stays light (no Textual): a lesson names its screen class by import
path, and its numbers come from a core function, so `specview learn N --json` needs no terminal.
Adding a screen = one file in this package, one `Lesson` here and its catalog lines
(`learn.<slug>.title`, `learn.<slug>.idea`) in texts/learn.<lang>.toml.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from specview.core.errors import CliError
from specview.core.learn_numbers import speedup_numbers

if TYPE_CHECKING:
    from textual.screen import Screen


@dataclass(frozen=True, slots=True)
class Lesson:
    """One Learn screen: its number, catalog slug, screen class and default numbers."""

    number: int
    slug: str
    screen: str  # "module:Class" under specview.learn
    numbers: Callable[[], dict[str, Any]]

    @property
    def title_key(self) -> str:
        return f"learn.{self.slug}.title"

    @property
    def idea_key(self) -> str:
        return f"learn.{self.slug}.idea"

    def make_screen(self, lang: str, **context: Any) -> Screen[None]:
        """The screen, imported only now (Textual loads with it)."""
        module, _, name = self.screen.partition(":")
        cls = getattr(import_module(f"specview.learn.{module}"), name)
        screen: Screen[None] = cls(self, lang, **context)
        return screen


LESSONS: tuple[Lesson, ...] = (
    Lesson(10, "speedup", "speedup_screen:SpeedupScreen", speedup_numbers),
)


def lesson(number: int) -> Lesson:
    """The lesson with this number, or a CliError listing the numbers there are."""
    for item in LESSONS:
        if item.number == number:
            return item
    known = ", ".join(str(item.number) for item in LESSONS)
    raise CliError(f"there is no Learn screen {number}; screens: {known}")
