"""The terminal as users expect (issue 25 item 4), in the pilot: Ctrl-C in the help, `p` asks
before it ends a real run, keys that do nothing in a run are not offered."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.widgets import Static

from specview.backends.factory import make_backend
from specview.backends.remote.options import RemoteOptions
from specview.cli.app_run import ui_settings
from specview.cli.parser import build_parser
from specview.features.live.app import SpecviewApp
from specview.features.live.preset_screen import PresetScreen
from specview.kernel.backend import BackendKind
from specview.kernel.runspec import RunSpec
from specview.tui.confirm import ConfirmScreen
from specview.tui.help_screen import HelpScreen
from specview.widgets.position_bars import PositionBars
from specview.widgets.run_pane import BAR_ROWS
from tests.support.app_helpers import sim_app, wait_until
from tests.support.fake_openai import running_fake
from tests.support.notices import notices


@contextmanager
def remote_app(lang: str = "en") -> Iterator[SpecviewApp]:
    """The live view of a real remote run: a served OpenAI-compatible test target on 127.0.0.1."""
    with running_fake("ok") as server:
        spec = RunSpec(lang=lang, options=RemoteOptions(url=server.url))
        yield SpecviewApp(spec, make_backend(spec), lang=lang)


def footer_keys(app: SpecviewApp) -> set[str]:
    return {binding.binding.id or "" for binding in app.screen.active_bindings.values()
            if binding.enabled and binding.binding.show}


def help_shown(app: SpecviewApp) -> str:
    assert isinstance(app.screen, HelpScreen)
    return " ".join(str(app.screen.query_one(Static).render()).split())  # a tip may wrap under its column


async def test_the_help_says_ctrl_c_quits() -> None:
    app = sim_app(max_rounds=5)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f1")
        shown = help_shown(app)
        assert "ctrl+c" in shown and "a second ctrl+c while it stops: at once" in shown


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_p_in_a_real_run_asks_first(lang: str) -> None:
    with remote_app(lang) as app:
        async with app.run_test(size=(120, 36)) as pilot:
            backend = app.live.backend
            assert backend.info.backend != BackendKind.SIM
            await pilot.press("p")
            assert isinstance(app.screen, ConfirmScreen), "the first p asks"
            question = str(app.screen.query_one(Static).render())
            assert ("End this run" if lang == "en" else "结束这次运行") in question
            assert ("p / y: end it" if lang == "en" else "p / y：结束") in question
            await pilot.press("escape")
            assert app.screen is app.live and app.live.backend is backend, "esc keeps the run"
            for again in ("p", "y"):
                await pilot.press("p")
                await pilot.press(again)
                assert isinstance(app.screen, PresetScreen), f"{again} goes on to the presets"
                await pilot.press("escape")
            await pilot.press("p", "y", "enter")
            await wait_until(pilot, lambda: app.live.backend.info.backend == BackendKind.SIM)
            assert app.screen is app.live
            await pilot.press("p")
            assert isinstance(app.screen, PresetScreen), "a simulator run is left without asking"


async def test_keys_that_do_nothing_in_a_real_run_are_not_offered() -> None:
    with remote_app() as app:
        async with app.run_test(size=(120, 36)) as pilot:
            assert "live.real" not in footer_keys(app)
            await pilot.press("x")
            assert app.screen is app.live, "x does nothing here"
            await pilot.press("f1")
            shown = help_shown(app)
            assert "llama-server / vLLM / SGLang commands" not in shown and "Simulator speed" not in shown
            assert "Choose a simulator preset" in shown
    app = sim_app(max_rounds=5)
    async with app.run_test(size=(120, 36)) as pilot:
        assert "live.real" in footer_keys(app)
        await pilot.press("f1")
        assert "Simulator speed ×2" in help_shown(app)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_bad_keymap_id_is_one_short_line_naming_config_check(
        lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[keymap]\n"live.pouse" = "j"\n', encoding="utf-8")
    monkeypatch.setenv("SPECVIEW_CONFIG", str(config))
    ui = ui_settings(build_parser().parse_args(["--lang", lang]))
    assert len(ui.problems) == 1 and "compare.preset" in ui.problems[0], "the problem itself lists every id"
    spec = RunSpec(max_rounds=5, speed=0, lang=lang)
    app = SpecviewApp(spec, make_backend(spec), lang=lang, problems=ui.problems)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: len(notices(app)) > 0)
        [shown] = [(n.title, n.message) for n in notices(app)]
        assert shown[0] == "" and "\n" not in shown[1] and len(shown[1]) <= 60, shown
        assert "specview config check" in shown[1]


async def test_a_compare_pane_shows_a_bar_for_each_of_ten_positions() -> None:
    specs = [RunSpec(preset=preset, seed=5, speed=0.0, max_rounds=200, gamma=10) for preset in ("ngram", "eagle3")]
    backends = [make_backend(spec) for spec in specs]
    app = SpecviewApp(specs[0], backends[0], compare=backends)
    async with app.run_test(size=(100, 30)) as pilot:
        bars = list(app.screen.query(PositionBars))

        def every_position() -> bool:
            return all(len(b.values) == 10 for b in bars)

        await wait_until(pilot, every_position)
        await pilot.pause()
        for widget in bars:
            drawn = "\n".join(widget.render_line(y).text for y in range(widget.size.height))
            assert sorted(int(k) for k in re.findall(r"(\d+) ▕", drawn)) == list(range(1, 11)), drawn
            assert widget.size.height <= BAR_ROWS and all(line.strip() for line in drawn.splitlines())
