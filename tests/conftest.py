"""Shared test helpers."""

from __future__ import annotations

import os

# Deterministic, quiet UI in tests: no animations, no cursor blink surprises.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
