"""docs/configuration.md names every key the config file takes and every SPECVIEW_* variable specview reads.

The keys are the config's own (`Config`'s fields, `[watch.alerts]`'s thresholds), so a key added to the
code and not to the page fails here; the variables are every `SPECVIEW_…` name in specview's source.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from specview.catalog.config import ENV_KEYS, WATCH_ALERTS, Config
from tests.support.docs_pages import ROOT, page

pytestmark = pytest.mark.unit

TABLE_KEY = re.compile(r"^\| `([^`]+)` \|", re.M)  # the first cell of a table row
TABLES = {"keymap": "[keymap]", "watch_alerts": "[watch.alerts]"}  # fields the file writes as a table


def documented() -> set[str]:
    return set(TABLE_KEY.findall(page("docs/configuration.md").text))


def test_every_config_key_has_a_row() -> None:
    not_keys = ("problems", "sources")  # what loading found, not keys of the file
    keys = {TABLES.get(f.name, f.name) for f in dataclasses.fields(Config) if f.name not in not_keys}
    assert keys - documented() == set()
    assert set(WATCH_ALERTS) - documented() == set()


def test_every_environment_variable_has_a_row() -> None:
    source = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "specview").rglob("*.py"))
    read = set(re.findall(r"\bSPECVIEW_[A-Z_]*[A-Z]\b", source)) | {f"SPECVIEW_{key.upper()}" for key in ENV_KEYS}
    text = page("docs/configuration.md").text
    assert {name for name in read if f"`{name}`" not in text} == set()


def test_the_page_names_no_key_the_config_does_not_take() -> None:
    """A row of the keys' tables is a key the file takes (the variables' table aside)."""
    keys = {TABLES.get(f.name, f.name) for f in dataclasses.fields(Config)} | set(WATCH_ALERTS)
    rows = {key for key in documented() if not key.startswith(("SPECVIEW_", "TEXTUAL_", "NO_COLOR"))}
    assert rows - keys == set()
