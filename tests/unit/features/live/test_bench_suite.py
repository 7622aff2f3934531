"""`specview bench --suite` on the simulator through the real CLI: per-category JSON and table, `--vs`,
the simulator's honesty about prompts, and bad suite files as one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specview.catalog.suite import KNOWN_CATEGORIES
from specview.cli import main
from specview.texts.catalog import text
from tests.support.hostile_checks import HOSTILE, assert_terminal_clean

pytestmark = pytest.mark.unit


def test_json_has_every_category_and_says_the_simulator_ignores_the_prompts_content(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--suite", "--rounds", "30", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["suite"]["license"] == "MIT"
    (run,) = got["runs"]
    assert [c["category"] for c in run["categories"]] == list(KNOWN_CATEGORIES)
    assert run["prompt_independent"] is True and "simulat" in run["note"]
    assert len(run["prompts"]) == sum(c["prompts"] for c in run["categories"])
    assert got["difference"] is None
    # each prompt its own seed: the simulator's spread across a category's prompts is a draw's, never 0
    assert all(c["tau"]["standard_error"] > 0 for c in run["categories"])


def test_vs_runs_a_second_configuration_and_prints_the_difference(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--suite", "default", "--rounds", "30", "--gamma", "4", "--vs", "--gamma 1",
                 "--json", "--table"]) == 0
    out = capsys.readouterr().out
    got = json.loads(out.splitlines()[0])
    a, b = got["runs"]
    assert "γ4" in a["name"] and "γ1" in b["name"]
    assert [d["category"] for d in got["difference"]] == list(KNOWN_CATEGORIES)
    assert all(d["tau"]["value"] < 0 for d in got["difference"])  # γ 1 cannot beat γ 4's τ here
    assert text("suite.delta_heading", "en") in out
    for category in KNOWN_CATEGORIES:
        assert text(f"suite.category.{category}", "en") in out


def test_the_table_is_in_chinese_with_lang_zh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--suite", "--rounds", "20", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert text("suite.category.chinese", "zh") in out and text("suite.sim_note", "zh") in out


@pytest.mark.parametrize("argv", [["--vs", "--gamma 2"], ["--suite", "--vs", "--json"], ["--suite", "--vs", "'"]])
def test_a_misused_vs_is_one_line_and_exit_two(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--rounds", "10", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--vs" in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hostile_suite_file_is_one_line_naming_it(tmp_path: Path, lang: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"bad{HOSTILE.replace(chr(0), '').replace('/', '')}.toml"  # a file name may hold any escape
    path.write_text("schema = 1\nname = 'x'\nlicense = 'x'\n[[categories]]\nid = 'a'\nprompts = [1]\n",
                    encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--suite", str(path), "--lang", lang])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and str(tmp_path / "bad") in captured.err
    assert_terminal_clean(captured.err.encode())


@pytest.mark.parametrize("output", ["--table", "--json"])
def test_a_suites_hostile_name_never_reaches_the_terminal(tmp_path: Path, output: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.json"
    hostile = HOSTILE.replace("\x00", "")
    path.write_text(json.dumps({"schema": 1, "name": hostile, "license": hostile,
                                "categories": [{"id": "own", "prompts": [hostile, "plain"]}]}), encoding="utf-8")
    assert main(["bench", "--suite", str(path), "--rounds", "5", output]) == 0
    out = capsys.readouterr().out
    assert_terminal_clean(out.encode())
    assert "own" in out


def test_the_spread_over_prompts_is_in_the_json_and_under_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--suite", "--rounds", "30", "--json", "--table"]) == 0
    out = capsys.readouterr().out
    (run,) = json.loads(out.splitlines()[0])["runs"]
    spread = run["per_request"]
    assert spread["count"] == len(run["prompts"]) and spread["basis"] == "accepted ÷ drafted"
    assert sum(b["count"] for b in spread["bins"]) == spread["count"]
    assert all(p["drafted"] >= p["accepted"] for p in run["prompts"])
    assert all(o["id"].rsplit("-", 1)[0] in KNOWN_CATEGORIES for o in spread["outliers"])
    assert "acceptance per request (accepted ÷ drafted), 24 requests · scale: a bar of 20 cells is" in out
    assert out.count("▕") >= 10
