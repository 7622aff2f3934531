"""Turn the shipped theme TOML files into Textual Theme objects."""

from __future__ import annotations

import tomllib
from importlib import resources

from textual.theme import Theme

TOKEN_DEFAULTS = {
    "token-accepted": "#3FB950",
    "token-rejected": "#F85149",
    "token-corrected": "#F5A524",
    "token-bonus": "#58A6FF",
}
COLOUR_KEYS = ("primary", "secondary", "accent", "foreground", "background", "surface", "panel", "boost",
               "success", "warning", "error")


def shipped_themes() -> list[Theme]:
    """Every theme in specview/themes/*.toml."""
    themes = []
    folder = resources.files("specview") / "themes"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
            colour = {k: str(data[k]) if k in data else None for k in COLOUR_KEYS}
            # token colours a theme leaves out come from TOKEN_DEFAULTS, via the app's variable defaults
            variables = {k: str(v) for k, v in data.get("variables", {}).items()}
            themes.append(
                Theme(
                    name=str(data["name"]),
                    primary=str(data["primary"]),
                    secondary=colour["secondary"],
                    accent=colour["accent"],
                    foreground=colour["foreground"],
                    background=colour["background"],
                    surface=colour["surface"],
                    panel=colour["panel"],
                    boost=colour["boost"],
                    success=colour["success"],
                    warning=colour["warning"],
                    error=colour["error"],
                    dark=bool(data.get("dark", True)),
                    # ansi: colours are the terminal's palette entries (ansi_red…), drawn as such
                    ansi=bool(data.get("ansi", False)),
                    variables=variables,
                )
            )
    return themes
