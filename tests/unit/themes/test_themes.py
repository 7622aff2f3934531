"""Shipped themes: each loads, colours every status, and a 16-colour terminal gets its own palette."""

from __future__ import annotations

from specview.themes.loader import TOKEN_DEFAULTS, shipped_themes
from specview.tui.app import DEFAULT_THEME, default_theme


def test_every_shipped_theme_colours_every_status() -> None:
    themes = {theme.name: theme for theme in shipped_themes()}
    assert {"specview", "specview-light", "okabe-ito", "high-contrast", "ansi"} <= set(themes)
    for theme in themes.values():
        assert set(TOKEN_DEFAULTS) <= set(theme.variables), theme.name
        assert len({theme.variables[k] for k in TOKEN_DEFAULTS}) == 4, f"{theme.name}: four different colours"


def test_the_ansi_theme_uses_the_terminals_palette() -> None:
    ansi = next(theme for theme in shipped_themes() if theme.name == "ansi")
    assert ansi.ansi
    assert all(ansi.variables[k].startswith("ansi_") for k in TOKEN_DEFAULTS)


def test_a_sixteen_colour_terminal_defaults_to_the_ansi_theme() -> None:
    assert default_theme("standard") == "ansi"
    assert default_theme("256") == DEFAULT_THEME
    assert default_theme("truecolor") == DEFAULT_THEME
    assert default_theme(None) == DEFAULT_THEME
