"""Hostile recordings, written by the tests, played by `replay --json` in a child process under
an address-space limit and a time limit: one clean line naming the file and the line (exit 2)
with the statistics of what came before it, or valid JSON (exit 0); never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.hostile_checks import HOSTILE, MARKUP, assert_terminal_clean, json_lines, one_error_line
from tests.support.limited_run import base_env, run_cli

HEADER = {"type": "header", "format": "specview-recording", "version": 2, "specview": "0.1.0",
          "backend": {"name": "sim", "label": "qwen3.6-mtp"}, "settings": {"preset": "qwen3.6-mtp", "gamma": 3}}


def token(text: str = "a", status: str = "accepted", pos: int | None = 0, **more: Any) -> dict[str, Any]:
    return {"id": None, "text": text, "status": status, "pos": pos, "p": 0.5, "q": 0.4, **more}


def round_(index: int = 0, drafted: int = 1, tokens: Any = None, **more: Any) -> dict[str, Any]:
    tokens = [token(), token(" b", "bonus", 1)] if tokens is None else tokens
    return {"type": "round", "index": index, "drafted": drafted, "tokens": tokens, "t_draft_s": 0.001,
            "t_verify_s": 0.01, "t_wall": 1.0 + index, **more}


def write(path: Path, *lines: Any, header: dict[str, Any] | None = None) -> Path:
    """A recording: the header, a good round, then `lines` (objects as JSON, str/bytes as they are)."""
    with path.open("wb") as file:
        for line in (header or HEADER, round_(0), *lines):
            data = line if isinstance(line, bytes) else (line if isinstance(line, str) else json.dumps(line)).encode()
            file.write(data + b"\n")
    return path


# name -> (bad line, what the error says)
BROKEN: dict[str, tuple[Any, str]] = {
    "drafted ten million": (round_(1, drafted=10_000_000), "round.drafted is 10000000, expected 0..1024"),
    "accepted more than drafted": (round_(1, drafted=1, tokens=[token(), token(pos=1), token(pos=2)]),
                                   "has 3 accepted tokens but drafted 1"),
    "a 5000-digit integer": ('{"type": "round", "index": ' + "7" * 5000 + "}", "not valid JSON we accept"),
    "arrays nested 100000 deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "a string where a number belongs": (round_(1, t_wall="soon"), "round.t_wall must be a number, got 'soon'"),
    "tokens as an object": (round_(1, tokens={"0": token()}), "round.tokens must be a list"),
    "NaN time": (json.dumps(round_(1)).replace('"t_wall": 2.0', '"t_wall": NaN'), "NaN is not a JSON number"),
    "infinite time": (json.dumps(round_(1)).replace('"t_wall": 2.0', '"t_wall": Infinity'), "Infinity is not"),
    "a status with markup and escapes": (round_(1, tokens=[token(status=MARKUP + "\x1b]0;x\x07")]),
                                         "round.tokens[0].status is '[/][link="),
    "a probability of 5": (round_(1, tokens=[token(p=5.0)]), "round.tokens[0].p is 5.0"),
    "a position of a billion": (round_(1, tokens=[token(pos=10**9)]), "round.tokens[0].pos is 1000000000"),
    "a negative index": (round_(-1), "round.index is -1"),
    "100000 tokens in one round": (round_(1, drafted=1, tokens=[token("x", "plain", None)] * 100_000),
                                   "round.tokens has 100000 items, at most 1026"),
    "a reconcile whose rounds are a string": ({"type": "reconcile", "first_index": 0, "rounds": "all"},
                                              "reconcile.rounds must be a list"),
    "a line of 20 MiB": ('{"type": "round", "text": "' + "x" * (20 * 2**20) + '"}', "longer than 16 MiB"),
    "bytes that are not UTF-8": (b"\xff\xfe\x00garbage", "not UTF-8 text"),
    "an unknown line type with escapes": ({"type": "\x1b]52;c;AAAA\x07"}, "unknown line type '\\x1b]52;c;AAAA\\x07'"),
    "a drafter that is not a name": (round_(1, drafter={"evil": MARKUP}), "round.drafter must be a string"),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_hostile_recording_ends_in_one_clean_line(tmp_path: Path, name: str) -> None:
    bad, expected = BROKEN[name]
    file = write(tmp_path / "hostile.jsonl", bad)
    run = run_cli(["replay", str(file), "--json"], base_env(tmp_path))
    assert not run.timed_out, f"{name}: still running after {run.elapsed:.0f} s"
    line = one_error_line(run.err)
    assert run.returncode == 2
    assert f"{file} line 3: " in line and expected in line, line
    (stats,) = json_lines(run.stdout)  # the good round before the damage still counts
    assert stats["rounds"] == 1


def test_a_lone_surrogate_and_escapes_in_tokens_replay_as_valid_json(tmp_path: Path) -> None:
    texts = ["\ud800", HOSTILE, "\udfff z"]
    file = write(tmp_path / "text.jsonl", round_(1, drafted=0, tokens=[token(t, "plain", None) for t in texts]))
    run = run_cli(["replay", str(file), "--json"], base_env(tmp_path))
    assert run.returncode == 0, run.err
    (stats,) = json_lines(run.stdout)
    assert stats["text"] == "a b" + "".join(texts)  # exact, through JSON escapes


def test_a_hostile_header_is_refused_or_shown_plain(tmp_path: Path) -> None:
    bad = {**HEADER, "backend": {"name": "sim", "label": HOSTILE, "exact": "yes"}}
    run = run_cli(["replay", str(write(tmp_path / "h.jsonl", header=bad)), "--json"], base_env(tmp_path))
    assert "backend.exact must be an object" in one_error_line(run.err)
    weird = {**HEADER, "backend": {"name": HOSTILE, "label": HOSTILE}, "settings": {"gamma": 10**6}}
    run = run_cli(["replay", str(write(tmp_path / "g.jsonl", header=weird)), "--json"], base_env(tmp_path))
    assert "settings.gamma is 1000000" in one_error_line(run.err)
    fine = {**HEADER, "backend": {"name": HOSTILE, "label": HOSTILE}, "specview": HOSTILE, "created": HOSTILE}
    run = run_cli(["replay", str(write(tmp_path / "f.jsonl", header=fine)), "--json"], base_env(tmp_path))
    assert run.returncode == 0, run.err
    (stats,) = json_lines(run.stdout)
    assert stats["backend"] == HOSTILE
    assert_terminal_clean(run.stderr)


def test_a_version_from_the_future_with_escapes(tmp_path: Path) -> None:
    future = {**HEADER, "version": 99, "specview": HOSTILE}
    run = run_cli(["replay", str(write(tmp_path / "v.jsonl", header=future)), "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert "format version 99 is not supported" in line and "\\x1b]52" in line


HEADER_3 = {**HEADER, "version": 3}
DISCARDED = token(" d", "discarded", 2, p=None)
# version 3 lines (calibrations, discarded drafts, the verifier's draws): name -> (bad line, what the error says)
BROKEN_3: dict[str, tuple[Any, str]] = {
    "a million verify costs": ({"type": "calibration", "basis": "measured", "plain_s": 0.01,
                                "verify_costs_s": [0.01] * 1_000_000},
                               "calibration.verify_costs_s has 1000000 items, at most 64"),
    "a calibration basis with markup": ({"type": "calibration", "basis": MARKUP, "plain_s": 0.01},
                                        "calibration.basis is '[/][link="),
    "a negative plain step": ({"type": "calibration", "basis": "given", "plain_s": -1},
                              "calibration.plain_s is -1"),
    "an accepted token among the discarded": (round_(1, drafted=3, tokens=[token(status="rejected"),
                                                                           token(" c", "corrected")],
                                                     discarded=[token(pos=1)]),
                                              "round.discarded holds a token that is not a discarded draft"),
    "100000 discarded drafts": (round_(1, drafted=3, discarded=[DISCARDED] * 100_000),
                                "round.discarded has 100000 items, at most 1024"),
    "more discarded than drafted": (round_(1, drafted=2, discarded=[DISCARDED] * 2),
                                    "discarded drafts beyond the 2 drafted"),
    "a uniform draw of 7": (round_(1, tokens=[token(u=7), token(" b", "bonus", 1)]), "round.tokens[0].u is 7"),
}


@pytest.mark.parametrize("name", list(BROKEN_3))
def test_a_hostile_version_3_line_ends_in_one_clean_line(tmp_path: Path, name: str) -> None:
    bad, expected = BROKEN_3[name]
    file, _run, line, _stats = replayed_with_a_bad_third_line(tmp_path / "hostile3.jsonl", name, bad, HEADER_3)
    assert f"{file} line 3: " in line and expected in line, line


def replayed_with_a_bad_third_line(file: Path, name: str, bad: Any, header: dict[str, Any]
                                   ) -> tuple[Path, Any, str, dict[str, Any]]:
    """`replay --json` of a recording whose third line is `bad`: it ends in time with exit 2 and one
    error line, after the one good round before it. (file, the run, that line, the stats printed.)"""
    file = write(file, bad, header=header)
    run = run_cli(["replay", str(file), "--json"], base_env(file.parent))
    assert not run.timed_out, f"{name}: still running after {run.elapsed:.0f} s"
    line = one_error_line(run.err)
    assert run.returncode == 2
    (stats,) = json_lines(run.stdout)
    assert stats["rounds"] == 1
    return file, run, line, stats


HEADER_4 = {**HEADER, "version": 4}
TOTALS = {"type": "totals", "source": "sglext.spec_tokens_details", "drafted": 6, "accepted": 2,
          "per_position": [2, 0], "verify_steps": 2, "tokens": 4}
CHECK = {"type": "check", "source": "/metrics", "shown": {"drafted": 6, "accepted": 2},
         "differs_by": {"drafts": 0, "drafted": 0, "accepted": 1, "per_position": [0, 1]}}
# version 4 lines (a server's end-of-request totals, its cross-check): name -> (bad line, what the error says)
BROKEN_4: dict[str, tuple[Any, str]] = {
    "a million per-position counts": ({**TOTALS, "per_position": [0] * 1_000_000},
                                      "totals.per_position has 1000000 items, at most 1024"),
    "more accepted than drafted": ({**TOTALS, "accepted": 7}, "accepted 7 of 6 drafted tokens"),
    "a count of 2**60": ({**TOTALS, "tokens": 2**60}, "totals.tokens is 1152921504606846976"),
    "counts that rise with the position": ({**TOTALS, "per_position": [0, 2]}, "per_position[1] (2) is above"),
    "a per-position count as a string": ({**TOTALS, "per_position": ["x"]}, "per_position[0] must be an integer"),
    "a source of a megabyte with escapes": ({**TOTALS, "source": MARKUP * 30_000},
                                            f"totals.source is {len(MARKUP) * 30_000} characters long"),
    "a check that differs by 2**60": ({**CHECK, "differs_by": {**CHECK["differs_by"], "drafted": 2**60}},
                                      "check.differs_by.drafted is 1152921504606846976"),
    "a check of a million positions": ({**CHECK, "differs_by": {**CHECK["differs_by"], "per_position": [1] * 10**6}},
                                       "check.differs_by.per_position has 1000000 items, at most 1024"),
    "a check whose source is markup": ({**CHECK, "source": MARKUP}, f"check.source is {len(MARKUP)} characters long"),
    "a check without its counts": ({"type": "check", "source": "/metrics"}, "check.shown must be an object"),
}


@pytest.mark.parametrize("name", list(BROKEN_4))
def test_a_hostile_totals_line_ends_in_one_clean_line(tmp_path: Path, name: str) -> None:
    bad, expected = BROKEN_4[name]
    file, run, line, stats = replayed_with_a_bad_third_line(tmp_path / "hostile4.jsonl", name, bad, HEADER_4)
    assert f"{file} line 3: not a valid {bad['type']}: " in line and expected in line, line
    assert stats["totals"] is None and stats["cross_check"] is None
    assert_terminal_clean(run.stderr)


def test_a_hostile_recorded_provenance_is_refused(tmp_path: Path) -> None:
    bad = {**HEADER_3, "backend": {"name": "sim", "label": "x", "provenance": {"outputs": {"speedup": MARKUP}}}}
    run = run_cli(["replay", str(write(tmp_path / "p.jsonl", header=bad)), "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2 and "backend.provenance.outputs" in line and "[/][link=" in line
    assert_terminal_clean(run.stderr)


CALIBRATION = {"type": "calibration", "basis": "measured", "plain_s": 0.01, "verify_costs_s": [0.01, 0.02]}
# a calibration's repeats (the baseline's spread): name -> (bad line, what the error says)
BROKEN_SAMPLES: dict[str, tuple[Any, str]] = {
    "a million plain repeats": ({**CALIBRATION, "plain_samples_s": [0.01] * 1_000_000},
                                "calibration.plain_samples_s has 1000000 items, at most 64"),
    "a negative repeat": ({**CALIBRATION, "plain_samples_s": [0.01, -1]}, "calibration.plain_samples_s[1] is -1"),
    "a repeat in markup": ({**CALIBRATION, "plain_samples_s": [MARKUP]}, "calibration.plain_samples_s[0]"),
    "repeats for costs that were not timed": ({**CALIBRATION, "verify_samples_s": [[0.01]] * 3},
                                              "calibration.verify_samples_s has 3 lists for 2 costs"),
    "repeats nested in repeats": ({**CALIBRATION, "verify_samples_s": [[[0.01]], [0.02]]},
                                  "calibration.verify_samples_s[0][0]"),
}


@pytest.mark.parametrize("name", list(BROKEN_SAMPLES))
def test_a_hostile_calibration_spread_ends_in_one_clean_line(tmp_path: Path, name: str) -> None:
    bad, expected = BROKEN_SAMPLES[name]
    file, run, line, stats = replayed_with_a_bad_third_line(tmp_path / "spread.jsonl", name, bad, HEADER_4)
    assert f"{file} line 3: not a valid calibration: " in line and expected in line, line
    assert stats["spread"]["calibrations"] == 0
    assert_terminal_clean(run.stderr)


def test_hostile_drafter_names_replay_sanitized_bounded_and_few(tmp_path: Path) -> None:
    names = [HOSTILE, MARKUP + "x" * 10_000, "ngram", *(f"d{i}" for i in range(2000))]
    file = write(tmp_path / "names.jsonl", *(round_(i, drafter=name) for i, name in enumerate(names, start=1)))
    run = run_cli(["replay", str(file), "--json"], base_env(tmp_path))
    assert not run.timed_out and run.returncode == 0, run.err
    (stats,) = json_lines(run.stdout)
    shown = [d["drafter"] for d in stats["by_drafter"]]
    assert len(shown) == 9 and shown[-1] == "…"  # eight names kept apart, the rest counted together
    assert sum(d["rounds"] for d in stats["by_drafter"]) == len(names)  # the good first round names none
    assert all(len(n) <= 48 for n in shown) and not any(ch in "".join(shown) for ch in "\x1b\x07\x9b")
    assert_terminal_clean(run.stderr)


def test_a_hostile_prompt_length_in_the_header_is_refused(tmp_path: Path) -> None:
    bad = {**HEADER, "backend": {**HEADER["backend"], "prompt_tokens": 10**12}}
    run = run_cli(["replay", str(write(tmp_path / "p.jsonl", header=bad)), "--json"], base_env(tmp_path))
    assert "backend.prompt_tokens is 1000000000000" in one_error_line(run.err)
