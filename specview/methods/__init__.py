"""Preset methods, one unit each: a folder here holding method.toml and texts.<lang>.toml.

registry.py finds the units (through the `specview.methods` entry points) and says what it found;
acceptance.py holds the acceptance models a unit may declare.
"""
