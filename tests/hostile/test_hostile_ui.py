"""The live view, replay and compare in a real pseudo-terminal, fed by a hostile server, hostile
recordings, a hostile config and a hostile user preset. Every byte the terminal receives is
recorded: no escape sequence from the input may be in it, markup is shown as text (never
interpreted), the app answers `q` and exits 0, all under an address-space and a time limit."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from tests.support.hostile_checks import HOSTILE, MARKUP, OSC52, SECRET, assert_no_secret, assert_terminal_clean
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.limited_run import Run, base_env, run_cli, run_tty

ESC_SHOWN = "␛".encode()


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def assert_quit_cleanly(run: Run) -> None:
    assert not run.timed_out, f"still running after {run.elapsed:.0f} s"
    assert run.returncode == 0, run.stdout[-2000:]
    assert_terminal_clean(run.stdout)
    assert run.stdout.rstrip().endswith(b"\x1b[?1006l")  # Textual's last reset: the app itself ended


def test_a_hostile_model_id_and_tokens_in_the_live_view(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = Scenario(models=[{"id": HOSTILE + "@KEY@"}],
                               events=[chat_chunk(t) for t in (HOSTILE, "\ud800", "x" * 300_000, "the end")])
    record = tmp_path / "run.jsonl"
    env = base_env(tmp_path, {"HOSTILE_KEY": SECRET})
    run = run_tty(["--url", server.url, "--api-key-env", "HOSTILE_KEY", "--record", str(record)], env,
                  keys=[("■ finished", b"q")])
    assert_quit_cleanly(run)
    assert ESC_SHOWN in run.stdout and "…[+298000]".encode() in run.stdout  # shown visibly; a huge token cut
    assert run.saw("[@click=app.quit]x[/]")  # markup in a token is text
    assert_no_secret(tmp_path)
    assert SECRET[:8].encode() not in run.stdout and b"***" in run.stdout  # the reflected key, masked
    assert len(record.read_text(encoding="utf-8").splitlines()) == 1 + 4  # header + every round, flushed


def test_a_mid_stream_error_with_markup_becomes_a_notification(server: HostileServer, tmp_path: Path) -> None:
    message = MARKUP + OSC52 + " [link=https://evil.example]open me[/link]"
    server.scenario = Scenario(events=[chat_chunk("hello"), {"error": {"message": message}}], done=False)
    run = run_tty(["--url", server.url], base_env(tmp_path), keys=[("[@click=app.quit]x[/]␛]52;c", b"q")])
    assert_quit_cleanly(run)
    assert run.notified("run stopped the server reported an error mid-stream: " + MARKUP + "␛]52;c;SE9TVElMRQ==␇")
    assert run.saw("stopped: the server reported")  # the state says why, not "finished"


def test_q_during_a_stalled_stream_quits_at_once(server: HostileServer, tmp_path: Path) -> None:
    server.release.clear()
    server.scenario = Scenario(events=[chat_chunk("waiting")], stall=True)
    run = run_tty(["--url", server.url, "--read-timeout", "60"], base_env(tmp_path), keys=[("waiting", b"q")])
    server.release.set()
    assert_quit_cleanly(run)
    assert run.after_last_key is not None and run.after_last_key < 5.0  # was ≥ 5.5 s; Session.stop < 0.5 s


def _recording(path: Path, label: str, texts: list[str]) -> Path:
    header = {"type": "header", "format": "specview-recording", "version": 2, "specview": HOSTILE,
              "created": HOSTILE, "backend": {"name": "sim", "label": label, "note": HOSTILE},
              "settings": {"preset": label, "gamma": 1}, "models": {"model": label}}
    rounds = [{"type": "round", "index": i, "drafted": 0, "tokens": [{"text": t, "status": "plain"}],
               "t_wall": 1.0 + i} for i, t in enumerate(texts)]
    path.write_text("\n".join(json.dumps(line) for line in [header, *rounds]) + "\n", encoding="utf-8")
    return path


def test_a_hostile_recording_in_replay_and_compare(tmp_path: Path) -> None:
    file = _recording(tmp_path / "r.jsonl", HOSTILE, [HOSTILE, "\udc80", "done"])
    replay = run_tty(["replay", str(file), "--speed", "0"], base_env(tmp_path), keys=[("■ finished", b"q")])
    assert_quit_cleanly(replay)
    assert ESC_SHOWN in replay.stdout and replay.saw("replay · ␛]52;c;SE9TVElMRQ==␇")
    compare = run_tty(["compare", f"replay:{file}", f"replay:{file}", "--speed", "0"], base_env(tmp_path),
                      keys=[("■ finished", b"q")])
    assert_quit_cleanly(compare)
    assert compare.saw("replay:␛]52;c;SE9TVElMRQ==␇")  # the pane titles and the summary table


def test_a_damaged_replay_line_with_markup_is_a_notification(tmp_path: Path) -> None:
    file = _recording(tmp_path / "d.jsonl", "label", ["fine"])
    with file.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "round", "index": 1, "drafted": 0, "t_wall": 2.0,
                              "tokens": [{"text": "x", "status": MARKUP + OSC52}]}) + "\n")
    run = run_tty(["replay", str(file), "--speed", "0"], base_env(tmp_path), keys=[("expected one of", b"q")])
    assert_quit_cleanly(run)
    assert run.notified(f"{file} line 3: not a valid round: round.tokens[0].status")
    assert run.notified("'[/][link=https://evil.examp...")  # the recording's text, shown as text
    assert run.saw("✗ stopped:")


def shipped_like(folder: Path, count: int) -> None:
    """`count` more presets like the shipped ones (copies of them under new ids), half sorting
    before evil.toml and half after: the picker's list then runs past what its box shows."""
    shipped = sorted((resources.files("specview") / "presets").iterdir(), key=lambda f: f.name)
    for i in range(count):
        source = shipped[i % len(shipped)].read_text(encoding="utf-8")
        name = f"{'aa' if i % 2 else 'zz'}-extra-{i}"
        body, found = re.subn(r'^id = ".*"$', f'id = "{name}"', source, count=1, flags=re.M)
        assert found == 1
        (folder / f"{name}.toml").write_text(body, encoding="utf-8")


def write_evil_preset(folder: Path) -> None:
    """A user preset whose id, label, notes and run command carry markup and escapes."""
    label = MARKUP + "\\u001b]52;c;SE9TVElMRQ==\\u0007"
    (folder / "evil.toml").write_text(
        f'id = "evil[/]"\nlabel = "{label}"\nmethod = "ngram"\ngamma = 2\ntemperature = 0\nc = 0.1\n'
        'target_ms = 10\nacceptance = {t0 = [0.5]}\nnotes = "[link=https://evil.example]x[/link]"\n'
        '[run]\nllama-server = "llama-server \\u001b]0;PWNED-TITLE\\u0007"\n')


def test_a_hostile_config_and_user_preset(tmp_path: Path) -> None:
    config = tmp_path / "config" / "specview" / "config.toml"
    presets = config.parent / "presets"
    presets.mkdir(parents=True)
    config.write_text('theme = "[/]\\u001b]0;PWNED-TITLE\\u0007"\npreset = "nope[/]"\n"\\u001b]52;c;AA\\u0007" = 1\n')
    write_evil_preset(presets)
    (presets / "broken.toml").write_text('id = "broken"\nmethod = "ngram"\ngamma = 2\ntemperature = 0\nc = 0.1\n'
                                         'target_ms = 10\nacceptance = {t0 = [0.5]}\nsources = 5\n')
    env = base_env(tmp_path)
    run = run_tty(["--speed", "0"], env, keys=[("specview config check", b"p"),
                                               ("choose a preset", b"\x1b"), (b"running", b"q")])
    assert_quit_cleanly(run)
    assert run.notified("config: 4 problems · specview config check lists them")  # one short line on screen
    # …and every problem in full, clean, from `specview config check`
    check = run_cli(["config", "check"], env)
    assert check.returncode == 2
    assert_terminal_clean(check.stdout + check.stderr)
    said = " ".join(check.stdout.decode().split())
    assert f"{config}: key 'preset' names no known preset" in said  # the config named, the default used
    assert "got 'nope[/]'; using the default" in said and "unknown theme '[/]\\x1b]0;PWNED" in said
    assert f"{presets / 'broken.toml'}: key 'sources' must be a list of tables" in said  # skipped


@pytest.mark.parametrize("extra", [0, 16], ids=["as-shipped", "many-more-presets"])
def test_a_hostile_user_preset_in_the_picker(tmp_path: Path, extra: int) -> None:
    """Listed as text however many presets there are: the picker is checked for the hostile
    preset's own row, found by its id, not for a place in the list."""
    presets = tmp_path / "config" / "specview" / "presets"
    presets.mkdir(parents=True)
    write_evil_preset(presets)
    shipped_like(presets, extra)
    # It is the run's preset, so the picker opens on it (highlighted, scrolled into view). The
    # escape key waits for its label on screen as text: one that never showed so would keep the app
    # running into the time limit. (No other file is bad: no toast comes over the list.)
    shown = "[/][link=https://evil.example]click[/link][@click=app.quit]x[/]␛]52;c;"  # markup as text, ESC as ␛
    notes = "[link=https://evil.example]x[/link]"  # the detail pane may draw a frame after the list
    # tall enough that the shipped list fits: its wrapped descriptions no longer scroll the hostile row
    # out of view while the picker settles (the 16-more case still scrolls to it)
    run = run_tty(["--speed", "0", "--preset", "evil[/]"], base_env(tmp_path), size=(120, 50),
                  keys=[(b"running", b"p"), (shown, b""), (notes, b"\x1b"), (b"running", b"q")])
    assert_quit_cleanly(run)  # no escape from the label, notes or run command reached the terminal
    assert run.saw(shown) and run.saw(notes)  # the label, and its notes


def test_recording_to_a_full_disk_stops_the_run_with_a_reason(tmp_path: Path) -> None:
    # a disk that fills up after 64 KiB (specview records to a regular file only: /dev/full is refused)
    record = tmp_path / "run.jsonl"
    run = run_tty(["--speed", "0", "--record", str(record)], base_env(tmp_path), keys=[("too large)", b"q")],
                  file_size=64 * 2**10)
    assert_quit_cleanly(run)
    assert run.notified(f"run stopped {record}: cannot write to it (File too large)")
