"""`c` copies what is shown (or the selected token), `e` exports the run; `replay --markdown` writes the same report."""

from __future__ import annotations

import json
import re
from pathlib import Path

from specview.backends.factory import make_backend
from specview.cli import main
from specview.features.live.app import SpecviewApp
from specview.features.live.inspector import describe
from specview.features.record.recording import Header, read_recording
from specview.kernel.runspec import RunSpec
from tests.support.app_helpers import token_view, wait_finished, wait_until
from tests.support.notices import notices

STRUCK = "\u0336"


def app_exporting_to(folder: Path, rounds: int = 40) -> SpecviewApp:
    spec = RunSpec(preset="glm-5.2-mtp", seed=3, speed=0.0, max_rounds=rounds)
    return SpecviewApp(spec, make_backend(spec), export_dir=str(folder))


async def test_c_copies_the_visible_text_with_its_marks(tmp_path: Path) -> None:
    app = app_exporting_to(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_finished(pilot)
        view = token_view(app)
        # the view follows the end of the stream: wait for that scroll (it lags the last round under load)
        await wait_until(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y >= view.max_scroll_y)
        await pilot.press("c")
        copied = app.clipboard
        assert copied == view.visible_text() and copied
        assert len(copied.splitlines()) <= view.size.height
        assert "▸" in copied and "⁺" in copied and STRUCK in copied, copied
        # the last visible line is the end of the stream (the view follows it): its emitted text, without the
        # marks and the struck-out rejected drafts (a character followed by the combining stroke)
        last = re.sub(f".{STRUCK}", "", copied.splitlines()[-1]).replace("▸", "").replace("⁺", "")
        assert view.plain_text().rstrip().endswith(" ".join(last.split())[-10:])


async def test_c_copies_the_selected_tokens_details(tmp_path: Path) -> None:
    app = app_exporting_to(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_finished(pilot)
        await pilot.press("left", "left")
        view = token_view(app)
        assert view.selected_token is not None
        await pilot.press("c")
        assert app.clipboard == describe(view.selected_token, "en")


async def test_e_exports_the_recording_and_the_report_side_by_side(tmp_path: Path) -> None:
    app = app_exporting_to(tmp_path, rounds=30)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_finished(pilot)
        await pilot.press("e")
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: any(n.title == "exported" for n in notices(app)))
        session = app.live.session
        snap = session.metrics.snapshot()
    recordings, reports = sorted(tmp_path.glob("*.jsonl")), sorted(tmp_path.glob("*.md"))
    assert len(recordings) == 1 and len(reports) == 1
    assert recordings[0].stem == reports[0].stem and recordings[0].stem.startswith("specview-glm-5.2-mtp-")
    items = list(read_recording(recordings[0]))
    assert isinstance(items[0], Header) and items[0].data["settings"]["preset"] == "glm-5.2-mtp"
    assert len(items) == 1 + 1 + 30  # the header, the simulator's assumed costs, the rounds
    report = reports[0].read_text(encoding="utf-8")
    for part in ("# specview run: glm-5.2-mtp", "## Settings", "## Provenance", "## Gauges (whole run)",
                 "## Acceptance by position", "## Text", f"`{recordings[0].name}`", "~~", "▸", "⁺",
                 f"{snap.rounds} rounds · {snap.tokens} tokens"):
        assert part in report, part
    assert f"| 1 | {snap.per_position_verified[0]} | {snap.per_position_acceptance[0]:.3f} |" in report
    # the headless report of the exported recording says the same
    assert main(["replay", str(recordings[0]), "--markdown", str(tmp_path / "again.md")]) == 0
    again = (tmp_path / "again.md").read_text(encoding="utf-8")
    assert again.split("## Gauges")[1] == report.split("## Gauges")[1]


async def test_an_export_that_cannot_be_written_is_one_notification(tmp_path: Path) -> None:
    app = app_exporting_to(tmp_path / "missing-folder", rounds=5)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_finished(pilot)
        await pilot.press("e")
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: any(n.title == "export failed" for n in notices(app)))
        failed = next(n for n in notices(app) if n.title == "export failed")
        assert "missing-folder" in failed.message and "Traceback" not in failed.message


def test_replay_markdown_writes_the_report_next_to_the_recording(tmp_path: Path, capsys: object) -> None:
    recording = tmp_path / "run.jsonl"
    assert main(["bench", "--preset", "qwen3.6-mtp", "--rounds", "15", "--record", str(recording), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert main(["replay", str(recording), "--markdown"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "run.md")  # type: ignore[attr-defined]
    report = (tmp_path / "run.md").read_text(encoding="utf-8")
    assert f"{stats['rounds']} rounds · {stats['tokens']} tokens" in report
    assert f"| acceptance α | {stats['acceptance_rate']:.3f} |" in report
