"""The docs' pictures (docs/images/*.svg) show what specview draws today, as snapshots do: each is drawn
again (tests/support/doc_pictures.py) and compared with the committed file. With SPECVIEW_UPDATE_PICTURES=1
(`make screenshots`) the test writes them instead."""

from __future__ import annotations

import difflib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.doc_pictures import (
    FOLDER,
    HOW_TO_UPDATE,
    PICTURES,
    UPDATE_ENV,
    Picture,
    render,
    screen_rows,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def any_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """What could differ between machines is pinned: the time zone (the fleet shows times of day), the
    config folder (no user presets or themes) and colour (a NO_COLOR in the shell would draw none)."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def changes(committed: str, drawn: str) -> str:
    """What changed, for the failure message: the rows of text that differ, else the first SVG lines (the
    same text in other colours or styles)."""
    before, after = screen_rows(committed), screen_rows(drawn)
    if before == after:
        before, after = committed.splitlines(), drawn.splitlines()
        heading = "the same text, drawn otherwise (colours, styles, size); first changed SVG lines"
    else:
        heading = "changed rows of text"
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return f"{heading} (- committed, + drawn):\n" + "\n".join(line[:160] for line in changed[:12])


@pytest.mark.parametrize("picture", PICTURES, ids=lambda picture: picture.name)
async def test_doc_picture_is_what_the_app_draws(picture: Picture) -> None:
    drawn = await render(picture)
    # nothing of this machine in a picture anyone may read: no home folder, checkout or temporary folder
    for local in (str(Path.home()), str(ROOT), tempfile.gettempdir()):
        assert local not in drawn, f"{picture.name} shows a path of this machine ({local})"
    if os.environ.get(UPDATE_ENV) == "1":
        FOLDER.mkdir(parents=True, exist_ok=True)
        picture.path.write_text(drawn, encoding="utf-8")
        return
    assert picture.path.is_file(), f"docs/images/{picture.name} is missing: make it with {HOW_TO_UPDATE}"
    committed = picture.path.read_text(encoding="utf-8")  # as the update wrote it: normalised
    if drawn != committed:
        pytest.fail(f"docs/images/{picture.name} is out of date: the app draws something else now. Draw it again "
                    f"with {HOW_TO_UPDATE}, look at it, and commit it.\n{changes(committed, drawn)}", pytrace=False)
