"""Lessons come from the screens' modules: each declares its Lesson and the registry finds them.

Checked against what the package holds (every LearnScreen subclass), not against a second list;
the `l` index, the command palette and `specview learn N --json` all list what the registry found.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.index_screen import LearnIndex
from specview.features.learn.registry import find_lessons, lessons
from specview.plugins import problems
from specview.texts.catalog import fill, text
from tests.support.app_helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]


def test_every_learn_screen_declares_its_lesson_numbered_one_to_n() -> None:
    found = lessons()
    screens, todo = set(), list(LearnScreen.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        screens |= {cls} if cls.__module__.startswith("specview.features.learn.") else set()
    assert {item.screen for item in found} == screens  # no screen without its lesson, none twice
    assert [item.number for item in found] == list(range(1, len(found) + 1))
    assert len(found) >= 11 and found[0].slug == "memory"  # the eleven screens there were, at least


def _plant(root: Path, modules: dict[str, str]) -> str:
    package = root / "planted_lessons"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, body in modules.items():
        (package / f"{name}.py").write_text(
            "from specview.features.learn.base import LearnScreen\n"
            "from specview.features.learn.registry import Lesson\n\n\n" + body)
    return package.name


def _lesson(number: int, slug: str) -> str:
    cls = f"{slug.title()}Screen"
    return f"class {cls}(LearnScreen):\n    pass\n\n\nLESSON = Lesson({number}, {slug!r}, {cls}, lambda lang: {{}})\n"


def test_lessons_are_ordered_by_number_not_by_file_and_a_clash_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(problems, "_seen", set())
    name = _plant(tmp_path, {"a_second": _lesson(2, "second"), "b_first": _lesson(1, "first"),
                             "c_again": "from planted_lessons.b_first import LESSON\n"})  # imported: still one
    assert [item.slug for item in find_lessons(name)] == ["first", "second"]
    (tmp_path / name / "d_clash.py").write_text((tmp_path / name / "a_second.py").read_text().replace("second",
                                                                                                       "other"))
    capsys.readouterr()
    assert [item.slug for item in find_lessons(name)] == ["first", "second"]  # the clash left out, the rest kept
    package = tmp_path / name
    assert capsys.readouterr().err == (f"specview: specview.lessons unit 'other' ({package}/d_clash.py) is left out: "
                                       f"Learn screen 2 is taken by 'second' ({package}/a_second.py)\n")
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_index_and_the_palette_list_every_lesson(lang: str) -> None:
    app = LearnApp(None, lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LearnIndex))
        listing = app.screen.query_one("#learn-list")
        shown = [listing.get_option_at_index(i).id for i in range(listing.option_count)]  # type: ignore[attr-defined]
        assert shown == [str(item.number) for item in lessons()]
        titles = [command.title for command in app.get_system_commands(app.screen)]
        wanted = [fill("palette.learn", lang, number=item.number, title=text(item.title_key, lang))
                  for item in lessons()]
        assert [title for title in titles if title in wanted] == wanted


def test_learn_json_finds_every_lesson_from_a_cold_start() -> None:
    last = lessons()[-1].number
    out = subprocess.run([sys.executable, "-m", "specview", "learn", str(last), "--json"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0 and out.stdout.startswith("{"), out.stderr
    beyond = subprocess.run([sys.executable, "-m", "specview", "learn", str(last + 1), "--json"],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    known = ", ".join(str(item.number) for item in lessons())
    assert beyond.returncode == 2
    assert beyond.stderr.strip() == f"specview: error: there is no Learn screen {last + 1}; screens: {known}"
