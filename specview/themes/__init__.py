"""Themes as data: TOML files turned into Textual themes."""
