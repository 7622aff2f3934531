"""The command line's edges: a bug is one line and a (masked) traceback in the crash log, exit 1;
bad options, configs and preset files are one line (exit 2) or a warning, never a traceback."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.hostile_checks import (
    HOSTILE,
    SECRET,
    assert_no_secret,
    assert_terminal_clean,
    json_lines,
    one_error_line,
)
from tests.support.limited_run import ROOT, base_env, run_cli

PRESET = ('method = "ngram"\ngamma = 2\ntemperature = 0\nc = 0.1\ntarget_ms = 10\nacceptance = {t0 = [0.5]}\n')


def toml_str(text: str) -> str:
    """`text` as a TOML basic string, every character that is not plain printed as an escape."""
    out = []
    for ch in text:
        code = ord(ch)
        plain = ch.isprintable() and ch not in '"\\' and code < 0x80
        out.append(ch if plain else (f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"))
    return '"' + "".join(out) + '"'


def crash_log(home: Path) -> Path:
    return home / "state" / "specview" / "log" / "crash.log"


def test_a_bug_in_a_command_is_one_line_and_a_logged_traceback(tmp_path: Path) -> None:
    import subprocess

    # A command that breaks with a key in its locals and its message (registered as a secret).
    script = textwrap.dedent(f"""
        import sys
        from specview.cli import main, presets_cmd
        from specview.boundary.secrets import add_secret
        add_secret({SECRET!r})
        def broken(as_json):
            key = {SECRET!r}
            raise RuntimeError("boom " + key + " \\x1b]0;PWNED-TITLE\\x07")
        presets_cmd.run_presets = broken
        sys.exit(main(["presets"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=base_env(tmp_path), cwd=ROOT)
    line = one_error_line(done.stderr, prefix="specview: internal error (RuntimeError: boom *** ␛]0;PWNED-TITLE␇)")
    assert done.returncode == 1
    assert f"the traceback is in {crash_log(tmp_path)}" in line
    logged = crash_log(tmp_path).read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in logged and "in broken" in logged
    assert_no_secret(tmp_path)


def test_a_bug_inside_the_app_is_one_line_too(tmp_path: Path) -> None:
    import subprocess

    script = textwrap.dedent(f"""
        import sys
        from specview.backends.factory import make_backend
        from specview.kernel.runspec import RunSpec
        from specview.boundary.secrets import add_secret
        from specview.features.live.app import SpecviewApp
        add_secret({SECRET!r})
        class Broken(SpecviewApp):
            def on_mount(self):
                super().on_mount()
                api_key = {SECRET!r}
                raise ValueError("broken " + api_key)
        spec = RunSpec(max_rounds=3, speed=0)
        app = Broken(spec, make_backend(spec))
        app.run(headless=True)
        sys.exit(app.return_code)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=base_env(tmp_path), cwd=ROOT)
    assert done.returncode == 1
    line = one_error_line(done.stderr, prefix="specview: internal error (ValueError: broken ***)")
    assert str(crash_log(tmp_path)) in line
    assert "in on_mount" in crash_log(tmp_path).read_text(encoding="utf-8")
    assert_no_secret(tmp_path)  # Textual's own report would have printed the locals, key included


@pytest.mark.parametrize("args", [["compare", "qwen3.6-mtp", "eagle3"], ["replay", "x.jsonl"], ["presets"]])
def test_record_where_nothing_is_recorded_is_an_error(tmp_path: Path, args: list[str]) -> None:
    run = run_cli(["--record", str(tmp_path / "r.jsonl"), *args], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2 and f"--record works with the live view and bench, not with {args[0]}" in line
    assert not (tmp_path / "r.jsonl").exists()


def test_a_bad_config_names_the_file_and_falls_back(tmp_path: Path) -> None:
    config = tmp_path / "config" / "specview" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('preset = "nope"\nspeed = nan\n')
    run = run_cli(["bench", "--rounds", "20", "--json"], base_env(tmp_path))
    assert run.returncode == 0, run.err
    (stats,) = json_lines(run.stdout)
    assert stats["preset"] == "qwen3.6-mtp"  # the default, not a fatal "unknown preset"


def test_bad_user_presets_are_skipped_not_fatal(tmp_path: Path) -> None:
    presets = tmp_path / "config" / "specview" / "presets"
    presets.mkdir(parents=True)
    (presets / "sources.toml").write_text('id = "s"\n' + PRESET + "sources = 5\n")
    (presets / "nan.toml").write_text('id = "n"\n' + PRESET.replace("c = 0.1", "c = nan"))
    (presets / "inf.toml").write_text('id = "i"\n' + PRESET.replace("target_ms = 10", "target_ms = inf"))
    (presets / "escape.toml").write_text('id = "e"\n' + PRESET + f"label = {toml_str(HOSTILE)}\n")
    (presets / "huge.toml").write_bytes(b"# " + b"x" * (2 * 2**20))
    (presets / "digits.toml").write_text('id = "d"\n' + PRESET.replace("gamma = 2", "gamma = " + "9" * 5000))
    (presets / "deep.toml").write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n")
    run = run_cli(["presets", "--json"], base_env(tmp_path))
    assert run.returncode == 0, run.err
    assert_terminal_clean(run.stderr)
    warnings = run.err.splitlines()
    assert all(w.startswith("specview: warning: ") and w.endswith("(preset file skipped)") for w in warnings)
    reasons = "\n".join(warnings)
    assert len(warnings) == 6, reasons  # every bad file but the one with a hostile label (only text)
    for needle in ("sources.toml: key 'sources' must be a list", "nan.toml: key 'c' is nan",
                   "inf.toml: key 'target_ms' is inf", "huge.toml: larger than 1024 KiB",
                   "digits.toml: not TOML specview can read", "deep.toml: not TOML specview can read"):
        assert needle in reasons, reasons
    assert_terminal_clean(run.stdout)
    ids = {p["id"] for p in json.loads(run.stdout)}
    assert {"qwen3.6-mtp", "e"} <= ids
    shipped = run_cli(["bench", "--preset", "eagle3", "--rounds", "10", "--json"], base_env(tmp_path))
    assert shipped.returncode == 0  # one bad file blocks nothing else
    missing = run_cli(["bench", "--preset", "s", "--json"], base_env(tmp_path))
    assert "unknown preset 's'" in one_error_line(missing.err.splitlines()[-1] + "\n")


def test_presets_text_listing_shows_hostile_text_plainly(tmp_path: Path) -> None:
    presets = tmp_path / "config" / "specview" / "presets"
    presets.mkdir(parents=True)
    hostile = toml_str(HOSTILE)
    body = f'id = "e"\n{PRESET}label = {hostile}\n[[sources]]\ntitle = {hostile}\nurl = {hostile}\ntag = "vendor"\n'
    (presets / "e.toml").write_text(body, encoding="utf-8")
    run = run_cli(["presets"], base_env(tmp_path, {"SPECVIEW_KEY": SECRET}))
    assert run.returncode == 0, run.err
    assert_terminal_clean(run.stdout)
    assert "␛]52;c;SE9TVElMRQ==␇" in run.out
