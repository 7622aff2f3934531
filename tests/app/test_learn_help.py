"""F1 on a Learn screen: the screen's own keys (from its bindings) and the glossary, aligned by cells
at 80×24 and 120×40; the live view keeps its marks and numbers, their columns aligned too."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from specview.catalog.glossary import glossary
from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.registry import lesson_named
from specview.kernel.gauges import GAUGES
from specview.texts.catalog import text
from specview.tui.help_screen import INDENT, HelpColumns, HelpScreen
from tests.support.app_helpers import sim_app, wait_finished, wait_until

SIZES = [(80, 24), (120, 40)]


async def learn_help(slug: str, lang: str, size: tuple[int, int]) -> dict[str, list[str]]:
    """The rendered lines of each part of F1 over Learn screen `slug`, by part id."""
    app = LearnApp(lesson_named(slug), lang=lang)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LearnScreen))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        parts = {str(w.id): w.lines(w.content_region.width) for w in app.screen.query(HelpColumns)}
        parts["ids"] = [str(w.id) for w in app.screen.query("#help-box > *")]
        parts["width"] = [str(next(iter(app.screen.query(HelpColumns))).content_region.width)]
        return parts


def tips(lines: list[str]) -> str:
    """The lines' text without spaces, so a tip wrapped over two lines (in Chinese, mid-sentence) is found."""
    return "".join("".join(lines).split())


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_f1_on_two_learn_screens_lists_their_own_keys_not_the_live_views(lang: str) -> None:
    def t(key: str) -> str:
        return "".join(text(key, lang).split())

    round_help = await learn_help("round", lang, (120, 40))
    memory_help = await learn_help("memory", lang, (120, 40))
    for parts in (round_help, memory_help):
        assert parts["ids"] == ["help-keys", "help-glossary"], "no marks and no gauges: the live view's"
        keys = tips(parts["help-keys"])
        assert t("keys.live.pause.tip") not in keys
        # each key on the line of what it does: esc goes back, q quits (the app's priority binding)
        by_key = {line.split()[0]: tips([line]) for line in parts["help-keys"][1:] if not line[INDENT].isspace()}
        assert by_key["esc"].endswith(t("keys.learn.back.tip"))
        assert by_key["q"].endswith(t("keys.app.quit.tip"))
        assert sum(line.split()[0] == "q" for line in parts["help-keys"][1:] if not line[INDENT].isspace()) == 1
    assert t("keys.learn.round.next.tip") in tips(round_help["help-keys"])
    assert t("keys.learn.round.restart.tip") in tips(round_help["help-keys"])
    assert t("keys.learn.memory.bandwidth.tip") in tips(memory_help["help-keys"])
    assert t("keys.learn.round.next.tip") not in tips(memory_help["help-keys"])
    # `b` is this screen's bandwidth key, not the live view's "b shows where a round starts"
    assert any(line.split()[:1] == ["b"] for line in memory_help["help-keys"])
    assert "│" not in "".join(memory_help["help-glossary"])


def first_lines(lines: list[str], names: list[str]) -> dict[str, str]:
    """The line each row starts on (its name at the indent)."""
    return {name: next(line for line in lines if line.startswith(" " * INDENT + name + " ")) for name in names}


def assert_aligned(lines: list[str], names: list[str], width: int) -> None:
    """Every row's second column starts at one cell, wrapped lines under it, none wider than `width`."""
    starts = set()
    for name, line in first_lines(lines, names).items():
        rest = line[INDENT + len(name):]
        starts.add(INDENT + cell_len(name) + len(rest) - len(rest.lstrip(" ")))
    assert len(starts) == 1, starts
    start = starts.pop()
    for line in lines:
        if line.strip() and line.startswith(" " * (INDENT + 1)):  # a wrapped line: under the second column
            assert line[:start].isspace() and line[start] != " ", line
    assert max(cell_len(line) for line in lines) <= width


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_the_learn_helps_glossary_is_the_glossary_file_aligned(lang: str, size: tuple[int, int]) -> None:
    parts = await learn_help("speedup", lang, size)
    width = int(parts["width"][0])
    terms = glossary(lang)
    lines = parts["help-glossary"]
    assert lines[1] == text("help.glossary", lang)
    assert_aligned(lines, [term.word for term in terms], width)
    for term in terms:  # each term once, with its whole meaning
        assert term.means.split()[0] in first_lines(lines, [term.word])[term.word]
    assert tips(lines).count(terms[0].means.split()[0]) >= 1
    keys = parts["help-keys"]
    assert_aligned(keys, ["esc", "q", "f"], width)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_the_live_helps_numbers_line_up_in_chinese(size: tuple[int, int]) -> None:
    app = sim_app("qwen3.6-mtp", max_rounds=10, lang="zh")
    async with app.run_test(size=size) as pilot:
        await wait_finished(pilot)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        numbers = app.screen.query_one("#help-numbers", HelpColumns)
        width = numbers.content_region.width
        lines = numbers.lines(width)
        shorts = list(dict.fromkeys(text(spec.short_id, "zh") for spec in GAUGES))
        assert_aligned(lines, shorts, width)
        assert "自动 γ" in shorts  # a short name whose characters and cells differ
        assert app.screen.query_one("#help-marks")
