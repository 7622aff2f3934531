"""The command line: light start-up, JSON stats, one-line errors with exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specview.boundary.text import sanitize

ENV = {**os.environ, "NO_COLOR": "1"}


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True,
                          timeout=timeout, env=ENV, stdin=subprocess.DEVNULL)


def test_help_imports_nothing_heavy() -> None:
    code = (
        "import sys; sys.argv=['specview','--help']\n"
        "from specview.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy=[m for m in ('textual','numpy','llama_cpp') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in out.stdout
    assert "--preset" in out.stdout and "bench" in out.stdout


def test_bench_json_has_the_design_keys() -> None:
    out = run("bench", "--preset", "glm-5.2-mtp", "--rounds", "500", "--seed", "4", "--json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    for key in ("backend", "preset", "gamma", "temperature", "rounds", "tokens", "drafted", "accepted",
                "acceptance_rate", "tau", "expected_tau", "tokens_per_second", "per_position_acceptance",
                "draft_cost", "text"):
        assert key in stats, key
    assert stats["backend"] == "sim" and stats["preset"] == "glm-5.2-mtp" and stats["rounds"] == 500
    assert len(stats["per_position_acceptance"]) == 7
    assert stats["tokens"] == round(stats["tau"] * stats["rounds"])
    again = run("bench", "--preset", "glm-5.2-mtp", "--rounds", "500", "--seed", "4", "--json")
    assert json.loads(again.stdout) == stats


def test_bench_options_change_the_run() -> None:
    out = run("bench", "--gamma", "5", "--temperature", "0", "--rounds", "300", "--json")
    stats = json.loads(out.stdout)
    assert stats["gamma"] == 5 and stats["temperature"] == 0 and stats["preset"] == "qwen3.6-mtp"
    assert len(stats["per_position_acceptance"]) == 5


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--preset", "nope"), "unknown preset 'nope'"),
        (("bench", "--preset", "nope", "--json"), "unknown preset 'nope'"),
        (("--gamma", "0"), "--gamma must be between 1 and 32"),
        (("--gamma", "x"), "--gamma must be an integer"),
        (("--temperature", "-1"), "--temperature must be between 0 and 5"),
        (("--seed", "abc"), "--seed must be an integer"),
        (("--theme", "nope"), "unknown theme 'nope'"),
        (("--frobnicate",), "unknown option --frobnicate"),
        (("--speed", "-1"), "--speed must be between 0 and 1000"),
        (("compare", "qwen3.6-mtp", "eagle3", "--speed", "-0.5"), "--speed must be between 0 and 1000"),
        (("watch", "--url", "http://127.0.0.1:9", "--count", "1"), "cannot connect to http://127.0.0.1:9"),
        (("watch", "--url", "ftp://x"), "--url must start with http:// or https://"),
        (("watch", "--url", "http://127.0.0.1:9", "--interval", "0"), "--interval must be between"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: tuple[str, ...], needle: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert needle in out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith("specview: error:")


def test_presets_listing() -> None:
    out = run("presets", "--json")
    data = json.loads(out.stdout)
    ids = {p["id"] for p in data}
    assert {"qwen3.6-mtp", "glm-5.2-mtp", "ngram"} <= ids
    assert all(p["sources"] for p in data)
    text = run("presets").stdout
    assert "[vendor]" in text and "glm-5.2-mtp" in text


def test_model_output_cannot_carry_escape_sequences() -> None:
    nasty = "ok\x1b[2J\x1b]52;c;ZXZpbA==\x07\x9b31m\u202ebidi\tend\nnext"
    clean = sanitize(nasty)
    assert "\x1b" not in clean and "\x07" not in clean and "\x9b" not in clean and "\u202e" not in clean
    assert "\n" in clean and clean.startswith("ok␛[2J")


def test_options_before_a_subcommand_are_kept() -> None:
    from specview.cli.parser import build_parser

    parser = build_parser()
    ns = parser.parse_args(["--seed", "5", "--preset", "eagle3", "--record", "f.jsonl", "bench"])
    assert (ns.seed, ns.preset, ns.record) == (5, "eagle3", "f.jsonl")
    assert parser.parse_args(["--speed", "2", "compare", "a", "b"]).speed == 2.0
    assert parser.parse_args(["compare", "a", "b", "--speed", "0"]).speed == 0.0
    assert parser.parse_args(["--lang", "zh", "replay", "f"]).lang == "zh"
    assert parser.parse_args(["bench"]).seed == 0


def test_the_configs_key_variable_is_the_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from specview.cli.parser import build_parser
    from specview.cli.runspec_args import spec_from_args

    path = tmp_path / "config.toml"
    path.write_text('api_key_env = "MY_SERVER_KEY"\n')
    monkeypatch.setenv("SPECVIEW_CONFIG", str(path))
    spec = spec_from_args(build_parser().parse_args(["--url", "http://127.0.0.1:1/v1"]))
    assert spec.api_key_env == "MY_SERVER_KEY"  # so a 401 and the recording's scrubbing name the right one
    spec = spec_from_args(build_parser().parse_args(["--url", "http://127.0.0.1:1/v1", "--api-key-env", "X"]))
    assert spec.api_key_env == "X"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bench_table_columns_are_the_gauge_tables(lang: str) -> None:
    from specview.kernel.gauges import BENCH, gauges
    from specview.texts.catalog import text

    out = run("bench", "qwen3.6-mtp", "ngram", "--rounds", "50", "--table", "--json", "--lang", lang)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    stats = [json.loads(line) for line in lines[:2]]
    header, rows = lines[2].split(), [line.split() for line in lines[3:]]
    shorts = [text(spec.short_id, lang) for spec in gauges(BENCH)]
    assert " ".join(header) == " ".join([text("summary.run", lang), *shorts])
    assert [row[0] for row in rows] == ["qwen3.6-mtp", "ngram"]
    alpha = 1 + [spec.key for spec in gauges(BENCH)].index("alpha")
    # (the JSON rounds to 4 decimals first, so the table's 3 may differ in the last digit)
    assert [float(row[alpha]) for row in rows] == [pytest.approx(s["acceptance_rate"], abs=6e-4) for s in stats]
