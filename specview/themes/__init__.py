"""Themes as data: TOML files turned into Textual themes."""

DEFAULT_THEME = "specview"  # the theme when none is chosen (tui/app.py)
# Where the terminal has only 16 colours, its own palette reads better than our colours mapped
# onto it (the nearest of 16 can swap hues: a dimmed red became yellow, orange became red).
SIXTEEN_COLOUR_THEME = "ansi"
