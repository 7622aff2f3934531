"""What a user does that can fail is a notification, never a crash; the user's keymap applies."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from specview.backends.factory import make_backend
from specview.cli.app_run import ui_settings
from specview.cli.parser import build_parser
from specview.features.live.app import SpecviewApp
from specview.features.live.compare_screen import CompareScreen
from specview.features.live.preset_screen import PresetScreen
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import text
from specview.tui.help_screen import HelpScreen
from specview.widgets.status_line import StatusLine
from tests.support.app_helpers import sim_app, token_view, wait_until
from tests.support.notices import notices

HOT = """
id = "too-hot"
label = "a preset no sampler takes"
method = "ngram"
gamma = 3
temperature = 6
c = 0.1
target_ms = 20
[acceptance]
t1 = [0.5, 0.4, 0.3]
"""
GONE = HOT.replace('"too-hot"', '"gone"').replace("temperature = 6", "temperature = 1")


@pytest.fixture
def user_presets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's preset folder: too-hot.toml (temperature 6: refused when read) and gone.toml
    (good, but the test deletes it between opening the picker and choosing it)."""
    folder = tmp_path / "specview" / "presets"
    folder.mkdir(parents=True)
    (folder / "too-hot.toml").write_text(HOT, encoding="utf-8")
    (folder / "gone.toml").write_text(GONE, encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    return folder


async def open_picker(pilot: Pilot[None]) -> PresetScreen:
    """Press p; the preset picker."""
    app = pilot.app
    await pilot.press("p")
    await wait_until(pilot, lambda: isinstance(app.screen, PresetScreen))
    picker = app.screen
    assert isinstance(picker, PresetScreen)
    return picker


async def pick(pilot: Pilot[None], picker: PresetScreen, preset: str) -> None:
    """Move to `preset` in the open picker and choose it."""
    app = pilot.app
    ids = list(picker.presets)
    now = picker.query_one("#preset-list").highlighted  # type: ignore[attr-defined]
    steps = ids.index(preset) - (now or 0)
    for _ in range(abs(steps)):
        await pilot.press("down" if steps > 0 else "up")
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.screen is app.screen_stack[0])


def last_severity(app: SpecviewApp) -> str | None:
    shown = notices(app)
    return shown[-1].severity if shown else None


def messages(app: SpecviewApp) -> list[str]:
    return [n.message for n in notices(app)]


def check_skipped(app: SpecviewApp, picker: PresetScreen, folder: Path) -> None:
    """The bad user preset file was reported once, as a warning naming it, and left out."""
    assert [(n.title, n.severity) for n in notices(app)] == [(text("notice.presets"), "warning")]
    assert messages(app)[0].startswith(f"{folder / 'too-hot.toml'}: key 'temperature'")
    assert "too-hot" not in picker.presets and "gone" in picker.presets and "ngram" in picker.presets


async def test_a_bad_user_preset_in_the_live_view_is_a_notification(user_presets: Path) -> None:
    app = sim_app(speed=30.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: token_view(app).token_count > 5)
        picker = await open_picker(pilot)
        check_skipped(app, picker, user_presets)
        (user_presets / "gone.toml").unlink()  # the file goes away while the picker is open
        await pick(pilot, picker, "gone")
        await wait_until(pilot, lambda: last_severity(app) == "error")  # the choice was refused
        last = notices(app)[-1]  # (the warning may have timed out by now)
        assert last.severity == "error" and last.message.startswith("unknown preset 'gone'; known presets: ")
        assert app.is_running and app.live.backend.info.preset == "qwen3.6-mtp"
        shown = token_view(app).token_count
        await wait_until(pilot, lambda: token_view(app).token_count > shown)  # the run goes on


async def test_a_bad_user_preset_in_compare_is_a_notification(user_presets: Path) -> None:
    specs = [RunSpec(preset=p, seed=5, speed=30.0) for p in ("qwen3.6-mtp", "glm-5.2-mtp")]
    app = SpecviewApp(specs[0], make_backend(specs[0]), compare=[make_backend(s) for s in specs],
                      compare_specs=specs)
    async with app.run_test(size=(140, 40)) as pilot:
        cmp = app.screen_stack[0]
        assert isinstance(cmp, CompareScreen)
        await wait_until(pilot, lambda: all(p.view.token_count > 5 for p in cmp.panes))
        picker = await open_picker(pilot)
        check_skipped(app, picker, user_presets)
        (user_presets / "gone.toml").unlink()
        await pick(pilot, picker, "gone")
        await wait_until(pilot, lambda: last_severity(app) == "error")  # the choice was refused
        last = notices(app)[-1]
        assert last.severity == "error" and last.message.startswith("unknown preset 'gone'; known presets: ")
        assert app.is_running and [b.info.preset for b in cmp.backends] == ["qwen3.6-mtp", "glm-5.2-mtp"]
        # a good preset for the focused pane restarts that pane only
        await pick(pilot, await open_picker(pilot), "ngram")
        await wait_until(pilot, lambda: cmp.backends[0].info.preset == "ngram")
        assert cmp.labels[0].startswith("sim:ngram γ10") and cmp.backends[1].info.preset == "glm-5.2-mtp"
        await wait_until(pilot, lambda: cmp.panes[0].view.token_count > 5)


async def test_the_keymap_moves_a_key_and_the_footer_and_help_follow() -> None:
    app = sim_app(speed=30.0)
    app.set_keymap({"live.pause": "k", "app.help": "f2"})
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: token_view(app).token_count > 5)
        await pilot.press("space")
        assert not app.live.session.paused, "space no longer pauses"
        await pilot.press("k")
        assert app.live.session.paused
        assert app.live.query_one(StatusLine).hint == f"f2 {text('keys.app.help.label')}"
        await pilot.press("f2")
        assert isinstance(app.screen, HelpScreen)
        shown = str(app.screen.query_one("Static").render())
        assert f"  k{' ' * 11} {text('keys.live.pause.tip')}" in shown.splitlines()


def test_an_unknown_keymap_id_is_reported_with_the_config_file(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[keymap]\n"live.pause" = "k"\n"live.pouse" = "j"\n"app.quit" = ""\n"live.step" = "\\u001b[31m"\n',
                    encoding="utf-8")
    monkeypatch.setenv("SPECVIEW_CONFIG", str(path))
    ui = ui_settings(build_parser().parse_args([]))
    assert ui.keymap == {"live.pause": "k"}
    assert [p.split(";")[0] for p in ui.problems] == [
        f"{path}: [keymap] 'app.quit' must be a non-empty string of keys, got ''",
        f"{path}: [keymap] 'live.step' must be a non-empty string of keys, got '\\x1b[31m'",  # no escape kept
        f"{path}: [keymap] has no binding 'live.pouse'",
    ]
    assert "live.pause" in ui.problems[2] and "compare.preset" in ui.problems[2], "the known ids are listed"


async def test_a_bad_user_preset_on_a_zh_live_screen_is_said_in_chinese(user_presets: Path) -> None:
    app = sim_app(speed=30.0, lang="zh")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: token_view(app).token_count > 5)
        picker = await open_picker(pilot)
        assert [(n.title, n.severity) for n in notices(app)] == [(text("notice.presets", "zh"), "warning")]
        assert messages(app) == [f"{user_presets / 'too-hot.toml'}：键 'temperature' 的值为 6.0，应为 [0, 5] 内的数"
                                 "（已跳过该预设文件）"]
        (user_presets / "gone.toml").unlink()
        await pick(pilot, picker, "gone")
        await wait_until(pilot, lambda: last_severity(app) == "error")
        refused = messages(app)[-1]
        assert refused.startswith("未知预设 'gone'；已知预设：") and "；跳过了 1 个用户预设文件：" in refused
        assert refused.endswith("（已跳过该预设文件）")
