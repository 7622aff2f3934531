"""The Learn app mounts once: Textual calls `on_mount` on every class of the app's MRO, so a subclass
that also called `super().on_mount()` ran the base app's start-up twice (each config problem, each
notice said twice, the stop signals caught twice)."""

from __future__ import annotations

from specview.features.learn.app import LearnApp
from specview.features.learn.index_screen import LearnIndex
from tests.support.app_helpers import wait_until
from tests.support.notices import notices


async def test_a_config_problem_is_said_once_in_learn() -> None:
    app = LearnApp(None, lang="en", problems=("config.toml: key 'lang' must be one of en, zh",))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LearnIndex))
        await pilot.pause()
        said = [n.message for n in notices(app) if "config" in n.message]
        assert len(said) == 1, said
