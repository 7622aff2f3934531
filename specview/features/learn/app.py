"""`specview learn [N]`: the explainer on its own, without a run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.screen import Screen

from specview.features.learn.explain.context import RunContext
from specview.features.learn.registry import Lesson
from specview.tui.app import BaseApp


class LearnApp(BaseApp):
    """Opens screen N, or the index; leaving the last screen quits.

    `llama_installed` is what the screens take to be installed when they say how to get a local model
    (the install command, or `--demo`); None looks (local_model.llama_installed). A snapshot pins it, so
    it draws the same whichever extras the machine has."""

    def __init__(self, lesson: Lesson | None, theme_name: str | None = None, lang: str = "en",
                 problems: tuple[str, ...] = (), keymap: Mapping[str, str] | None = None,
                 run: RunContext | None = None, presets: Sequence[str] = (),
                 llama_installed: bool | None = None) -> None:
        super().__init__(theme_name, lang, problems, keymap)
        self.first = lesson
        self.run_context = run
        self.learn_presets = tuple(presets)  # the presets the screens list: these alone (none given: every one)
        self.llama_installed = llama_installed

    def get_default_screen(self) -> Screen[None]:
        from specview.features.learn.home_screen import LearnHome

        return LearnHome(self.lang)

    def learn_context(self) -> RunContext | None:
        """The run given on the command line, else a live run started from a Learn screen (Learn 9's
        `r`), so a lesson opened over it shows that run's own last round."""
        if self.run_context is not None:
            return self.run_context
        from specview.features.live.screen import LiveScreen

        live = [screen for screen in self.screen_stack if isinstance(screen, LiveScreen)]
        return live[-1].learn_context() if live else None

    def started(self) -> None:
        if self.first is not None:
            self.open_lesson(self.first)
        else:
            self.action_learn()
