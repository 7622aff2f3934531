"""While the app owns the terminal, a plugin unit left out is a notification, not a line on stderr
(which the app's screen would hide or tear); the ones said before it started are notified too."""

from __future__ import annotations

import pytest

from specview.features.learn.app import LearnApp
from specview.plugins import problems
from specview.texts.catalog import Phrase, fill
from tests.support.app_helpers import wait_until
from tests.support.notices import notices


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_plugin_problem_is_a_notification_in_the_apps_language(
        lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(problems, "_seen", set())
    monkeypatch.setattr(problems, "_said", [])
    before = Phrase("plugins.load_failed", point="specview.lessons early = early", file="/x/early.py",
                             error="ImportError: early")
    problems.report(before)  # no app yet: stderr
    assert capsys.readouterr().err.startswith("specview: plugin specview.lessons early = early (/x/early.py)")
    app = LearnApp(None, lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        later = Phrase("plugins.load_failed", point="specview.gauges late = late", file="/x/late.py",
                                error="ImportError: late")
        problems.report(later)
        wanted = [fill(p.key, lang, **p.fields) for p in (before, later)]
        await wait_until(pilot, lambda: [n.message for n in notices(app)] == wanted)
    assert capsys.readouterr().err == ""  # said in the app only
    problems.report(Phrase("plugins.same_id", id="'x'", other="/x/x.py"))  # the app gone: stderr again
    assert capsys.readouterr().err.startswith("specview: ")
