"""The Markdown report: marks without colour, and token text that cannot become Markdown of its own."""

from __future__ import annotations

from specview.features.record.markdown import escape, markdown_report, marked_text
from specview.kernel.backend import BackendInfo
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.metrics import Metrics

A, R, C, B = TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS


def tok(text: str, status: TokenStatus, pos: int | None = 0) -> TokenEvent:
    return TokenEvent(None, text, status, pos)


def test_marks_sit_inside_the_whitespace() -> None:
    tokens = [tok("The", A), tok(" keeper", A, 1), tok(" watched", R, 2), tok(" looked", C, 2),
              tok(" at", A, 0), tok(" ships", B, None)]
    assert marked_text(tokens) == "The keeper ~~watched~~ ▸looked at ships⁺"


def test_hostile_token_text_stays_text() -> None:
    hostile = "\n# heading [link](http://evil) <script>x</script> | cell | `code` *bold* \x1b[31m\u202e"
    out = marked_text([tok(hostile, A), tok("\n- item\n1. one", A)])
    assert "\\# heading" in out and "\\[link\\]" in out and "\\<script\\>" in out
    assert "\\| cell \\|" in out and "\\`code\\`" in out and "\\*bold\\*" in out
    assert "\x1b" not in out and "\u202e" not in out and "␛" in out
    assert "\n\\- item" in out and "\n\\1. one" in out


def test_escape_keeps_ordinary_text_readable() -> None:
    assert escape("specview 0.1.0 at 12:00") == "specview 0.1.0 at 12:00"
    assert escape("a & b") == "a &amp; b"


def test_report_has_every_section_and_the_numbers_of_the_run() -> None:
    rounds = [Round(0, 3, (tok("Hi", A, 0), tok(" there", R, 1), tok(" you", C, 1)), 0.01, 0.02, 1.0),
              Round(1, 3, (tok(" a", A, 0), tok(" b", A, 1), tok(" c", A, 2), tok(" d", B, None)), 0.01, 0.02, 2.0)]
    metrics = Metrics()
    for rnd in rounds:
        metrics.add(rnd)
    snap = metrics.snapshot()
    info = BackendInfo("sim", "Test | label", 3, 1.0, preset="p", seed=4, exact={"acceptance": True})
    header = {"specview": "0.1.0", "created": "2025-01-01T00:00:00+00:00", "format": "specview-recording",
              "version": 2, "prompt": "tell me\n# more", "settings": {}}
    report = markdown_report(header, info, snap, rounds, recording="run.jsonl", dropped_rounds=7)
    assert report.startswith("# specview run: Test \\| label\n")
    assert "| prompt | tell me \\# more |" in report
    assert "the first 7 rounds are not in this export" in report
    assert f"{snap.rounds} rounds · {snap.tokens} tokens · {snap.drafted} drafted · {snap.accepted} accepted" in report
    assert "| 1 | 2 | 1.000 |" in report and "| 2 | 2 | 0.500 |" in report
    assert report.rstrip().endswith("Hi ~~there~~ ▸you a b c d⁺")
    assert "α exact, τ not reported" in report


def test_report_in_chinese() -> None:
    metrics = Metrics()
    report = markdown_report({}, BackendInfo("sim", "x", None, 0.0), metrics.snapshot(), [], lang="zh")
    assert "## 设置" in report and "本次运行没有草稿。" in report


def test_the_report_marks_discarded_drafts_as_the_stream_does() -> None:
    """Drafts after the first rejection are in the report, marked ˣ (core.events.MARKS), never as text."""
    rnd = Round(0, 3, (tok("Hi", A, 0), tok(" there", R, 1), tok(" you", C, 1)), 0.01, 0.02, 1.0,
                discarded=(tok(" all", TokenStatus.DISCARDED, 2),))
    metrics = Metrics()
    metrics.add(rnd)
    report = markdown_report({}, BackendInfo("sim", "x", 3, 1.0), metrics.snapshot(), [rnd])
    assert report.rstrip().endswith("Hi ~~there~~ allˣ ▸you")
    assert "discardedˣ" in report
