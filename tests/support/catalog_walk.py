"""Reading a screen for the catalog walker: every word on the terminal, and those in no catalog
text and no data (tests/app/test_catalog.py walks every screen; the monitor's test walks it)."""

from __future__ import annotations

import html
import re
import string
from importlib import resources

from textual.app import App
from textual.geometry import Region
from textual.screen import ModalScreen

from specview.catalog.claims import load_claims
from specview.catalog.preset_words import preset_words
from specview.catalog.presets import load_presets
from specview.methods.registry import methods
from specview.texts.catalog import catalog

WORD = re.compile(r"[A-Za-z]+")
ALWAYS = {"specview"}  # the program's name
CUT = re.compile(r"([A-Za-z]+)…")  # a word cut short to fit a cell: fine if it starts an allowed word


def words(text: str) -> set[str]:
    return set(WORD.findall(text))


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


CELL_X, CELL_Y, TOP = 12.2, 24.4, 20.0  # how Rich's SVG export places a cell


def screen_text(app: App[None], region: Region | None = None) -> str:
    """What the terminal shows now (or inside `region`), as text, from the SVG screenshot."""
    rows: dict[int, list[str]] = {}
    svg = app.export_screenshot()
    for x, y, run in re.findall(r'<text[^>]* x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>', svg):
        col, row = round(float(x) / CELL_X), round((float(y) - TOP) / CELL_Y)
        line = rows.setdefault(row, [" "] * app.size.width)
        for i, ch in enumerate(html.unescape(run).replace("\xa0", " ")):
            if col + i < len(line):
                line[col + i] = ch
    if region is None:
        return "\n".join("".join(line) for _, line in sorted(rows.items()))
    return "\n".join("".join(rows.get(y, [])[region.x:region.right]) for y in range(region.y, region.bottom))


def key_names(app: App[None]) -> set[str]:
    """Key names as the footer and help write them (space, esc, ^p, f1…)."""
    names: set[str] = set()
    for screen in app.screen_stack:  # a modal screen shows the footer of the screen under it
        for active in screen.active_bindings.values():
            names |= words(app.get_key_display(active.binding))
    return names


def data_words(lang: str) -> set[str]:
    """The stream's text and what names the runs: data, not interface."""
    passage = (resources.files("specview") / "texts" / f"passage.{lang}.txt").read_text(encoding="utf-8")
    names = {"sim", "replay", "llama", "openai", "cpp", "server", "vLLM", "SGLang"}  # backends, engines
    cited = " ".join(claim.describe(lang) for claim in load_claims().values())  # published figures, in their words
    schools = " ".join(method.school_in(lang) for method in methods().values())  # each method unit's own words
    presets = " ".join(" ".join((p.id, *preset_words(p, lang))) for p in load_presets().values())
    return words(passage) | names | words(cited) | words(schools) | words(presets)


def strays(app: App[None], lang: str, extra: set[str] | None = None) -> set[str]:
    """Words on screen in no catalog text and no data. Over a modal screen only its box counts
    (the screen under it shows through, cut at the box's edges)."""
    allowed = words(" ".join(catalog(lang).values())) | data_words(lang) | key_names(app) | ALWAYS | (extra or set())
    screen = app.screen
    region = screen.query_one(".modal-box").region if isinstance(screen, ModalScreen) else None
    shown = screen_text(app, region)
    cut = {w for w in CUT.findall(shown) if any(a.startswith(w) for a in allowed)}
    return words(shown) - allowed - cut
