"""`specview learn [N]`: the explainer on its own, without a run."""

from __future__ import annotations

from collections.abc import Mapping

from textual.screen import Screen

from specview.features.learn.explain.context import RunContext
from specview.features.learn.registry import Lesson
from specview.tui.app import BaseApp


class LearnApp(BaseApp):
    """Opens screen N, or the index; leaving the last screen quits."""

    def __init__(self, lesson: Lesson | None, theme_name: str | None = None, lang: str = "en",
                 problems: tuple[str, ...] = (), keymap: Mapping[str, str] | None = None,
                 run: RunContext | None = None) -> None:
        super().__init__(theme_name, lang, problems, keymap)
        self.first = lesson
        self.run_context = run

    def get_default_screen(self) -> Screen[None]:
        from specview.features.learn.home_screen import LearnHome

        return LearnHome(self.lang)

    def learn_context(self) -> RunContext | None:
        return self.run_context

    def on_mount(self) -> None:
        super().on_mount()
        if self.first is not None:
            self.open_lesson(self.first)
        else:
            self.action_learn()
