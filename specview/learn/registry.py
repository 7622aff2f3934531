"""Every Learn screen in order: read by the `l` key, the command palette and `specview learn N`.

Importing this module stays light (no Textual): a lesson names its screen class by import
path, and its numbers come from core functions, so `specview learn N --json` needs no terminal.
Adding a screen = one file in this package, one `Lesson` here and its catalog lines
(`learn.<slug>.title`, `learn.<slug>.idea`, …) in texts/learn.<lang>.toml.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from specview.core.errors import CliError
from specview.core.explain.context import RunContext

if TYPE_CHECKING:
    from textual.screen import Screen


@dataclass(frozen=True, slots=True)
class Lesson:
    """One Learn screen: its number, catalog slug, screen class and default numbers."""

    number: int
    slug: str
    screen: str  # "module:Class" under specview.learn
    numbers: Callable[[str], dict[str, Any]]  # the screen's numbers at its default controls, by language

    @property
    def title_key(self) -> str:
        return f"learn.{self.slug}.title"

    @property
    def idea_key(self) -> str:
        return f"learn.{self.slug}.idea"

    def make_screen(self, lang: str, run: RunContext | None = None) -> Screen[None]:
        """The screen, imported only now (Textual loads with it); `run` ties it to a live decoder."""
        module, _, name = self.screen.partition(":")
        cls = getattr(import_module(f"specview.learn.{module}"), name)
        screen: Screen[None] = cls(self, lang, run)
        return screen


def _memory(lang: str) -> dict[str, Any]:
    from specview.core.explain.roofline import gpu_wait_numbers

    return gpu_wait_numbers()


def _verify(lang: str) -> dict[str, Any]:
    from specview.core.explain.roofline import verify_cost_numbers

    return verify_cost_numbers()


def _mask(lang: str) -> dict[str, Any]:
    from specview.core.explain.mask import mask_numbers
    from specview.core.explain.rounds import round_drafts
    from specview.learn.sim_round import sample_round, split_context

    before, rnd = sample_round(lang)
    context, pending = split_context(before)
    return mask_numbers(context, pending, [d.text for d in round_drafts(rnd)])


def _cache(lang: str) -> dict[str, Any]:
    from specview.core.explain.cache import round_rollback
    from specview.core.explain.rounds import label
    from specview.learn.sim_round import sample_round

    before, rnd = sample_round(lang)
    return round_rollback([label(t) for t in before], rnd)


def _round(lang: str) -> dict[str, Any]:
    from specview.core.explain.rounds import round_numbers
    from specview.learn.sim_round import sample_round

    return round_numbers(sample_round(lang)[1])


def _lossless(lang: str) -> dict[str, Any]:
    from specview.core.explain.coupling import coupling_numbers

    return coupling_numbers()


def _mtp(lang: str) -> dict[str, Any]:
    from specview.core.explain.mtp import mtp_numbers

    return mtp_numbers()


def _fusion(lang: str) -> dict[str, Any]:
    from specview.core.explain.fusion import fusion_numbers

    return fusion_numbers()


def _cases(lang: str) -> dict[str, Any]:
    from specview.core.explain.cases import case_numbers

    return case_numbers()


def _speedup(lang: str) -> dict[str, Any]:
    from specview.core.explain.speedup import speedup_numbers

    return speedup_numbers()


def _load(lang: str) -> dict[str, Any]:
    from specview.core.explain.load import load_numbers

    return load_numbers()


LESSONS: tuple[Lesson, ...] = (
    Lesson(1, "memory", "memory_screen:MemoryScreen", _memory),
    Lesson(2, "verify", "verify_screen:VerifyScreen", _verify),
    Lesson(3, "mask", "mask_screen:MaskScreen", _mask),
    Lesson(4, "cache", "cache_screen:CacheScreen", _cache),
    Lesson(5, "round", "round_screen:RoundScreen", _round),
    Lesson(6, "lossless", "lossless_screen:LosslessScreen", _lossless),
    Lesson(7, "mtp", "mtp_screen:MtpScreen", _mtp),
    Lesson(8, "fusion", "fusion_screen:FusionScreen", _fusion),
    Lesson(9, "cases", "cases_screen:CasesScreen", _cases),
    Lesson(10, "speedup", "speedup_screen:SpeedupScreen", _speedup),
    Lesson(11, "load", "load_screen:LoadScreen", _load),
)


def lesson(number: int) -> Lesson:
    """The lesson with this number, or a CliError listing the numbers there are."""
    for item in LESSONS:
        if item.number == number:
            return item
    known = ", ".join(str(item.number) for item in LESSONS)
    raise CliError(f"there is no Learn screen {number}; screens: {known}")
