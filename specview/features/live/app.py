"""The live view's app: one run (or a compare of several) on the shell every specview app shares."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.app import SystemCommand
from textual.screen import Screen

from specview.features.learn.explain.context import RunContext
from specview.features.live.screen import LiveScreen
from specview.kernel.backend import Backend
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import text
from specview.tui.app import BaseApp
from specview.tui.pump import Throttle


class SpecviewApp(BaseApp):
    """The live view (or compare) of runs."""

    def __init__(self, spec: RunSpec, backend: Backend, theme_name: str | None = None,
                 lang: str = "en", record: str | None = None,
                 compare: list[Backend] | None = None, problems: tuple[str, ...] = (),
                 compare_specs: list[RunSpec] | None = None, keymap: Mapping[str, str] | None = None,
                 throttle: Throttle | None = None, export_dir: str | None = None) -> None:
        super().__init__(theme_name, lang, problems, keymap, throttle)
        self.compare = compare
        self.compare_specs = compare_specs
        self.spec = spec
        self.record = record
        self.export_dir = export_dir
        self.initial_backend = backend

    def get_default_screen(self) -> Screen[None]:
        if self.compare:
            from specview.features.live.compare_screen import CompareScreen

            return CompareScreen(self.compare, self.lang, self.throttle, self.compare_specs)
        return LiveScreen(self.spec, self.initial_backend, self.lang, record=self.record, throttle=self.throttle,
                          export_dir=self.export_dir)

    def run_preset(self, preset_id: str) -> None:
        """Switch the live run to `preset_id` and show it (the Learn screens close)."""
        if isinstance(self.screen_stack[0], LiveScreen):
            while len(self.screen_stack) > 1:
                self.pop_screen()
            self.live.switch_preset(preset_id)
        else:
            super().run_preset(preset_id)

    def learn_context(self) -> RunContext | None:
        """The live run's measured numbers and model, for the Learn screens."""
        if not isinstance(self.screen_stack[0], LiveScreen):
            return None
        return self.live.learn_context()

    @property
    def live(self) -> LiveScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, LiveScreen)
        return screen

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if not isinstance(self.screen_stack[0], LiveScreen):
            return
        live, t = self.live, self.lang
        for name, action in (("pause", live.action_toggle_pause), ("step", live.action_step),
                             ("restart", live.action_restart), ("preset", live.action_choose_preset),
                             ("copy", live.action_copy), ("export", live.action_export),
                             ("help", self.action_help), ("learn_token", live.action_learn_token),
                             ("learn_speedup", live.action_learn_speedup)):
            yield SystemCommand(text(f"palette.{name}.title", t), text(f"palette.{name}.help", t), action)
