"""The live view on servers that tell their counts at the end of a request (tests/support/fake_engines.py):
the gauges say "exact totals, rounds inferred" once SGLang's totals came, and the side panel's note
says whether llama-server's /metrics agrees with the counts shown, or by how much it differs."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from specview.backends.factory import make_backend
from specview.backends.remote.options import RemoteOptions
from specview.features.live.app import SpecviewApp
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import fill, text
from specview.widgets.stat_gauge import StatGauge
from tests.support.app_helpers import wait_finished
from tests.support.fake_engines import running_engine


def remote_app(url: str, lang: str = "en") -> SpecviewApp:
    spec = RunSpec(lang=lang, options=RemoteOptions(url=url))
    return SpecviewApp(spec, make_backend(spec), lang=lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_sglang_totals_make_the_run_values_exact(lang: str) -> None:
    with running_engine("sglang") as server:
        app = remote_app(server.url, lang)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_finished(pilot)
            for key in ("alpha", "tau"):
                note = app.live.query_one(f"#g-{key}", StatGauge).note
                assert note.startswith(text("tag.exact_totals", lang)), note
            # the whole run's α in the α note is the server's 5 of 10 verified, not the chunks' guess
            alpha_note = app.live.query_one("#g-alpha", StatGauge).note
            assert fill("gauge.alpha.note", lang, run="0.50", **{"yield": "0.33"}) in alpha_note


@pytest.mark.parametrize(("kind", "word"), [("llama", "agrees"), ("llama-differs", "differs")])
async def test_the_panel_note_shows_the_cross_checks_result(kind: str, word: str) -> None:
    with running_engine(kind) as server:
        app = remote_app(server.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_finished(pilot)
            note = str(app.live.query_one("#note", Static).render())
    expected = (fill("note.cross_check_agrees", drafted="7", accepted="2") if word == "agrees" else
                fill("note.cross_check_differs", drafts="0", drafted="0", accepted="+1", positions="0 +1 0 0"))
    assert expected in note, note
