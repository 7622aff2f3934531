"""No escape sequence from a server reaches the terminal: every byte the running app writes is checked.

The hostile-input tests' OpenAI-compatible server (tests/support/hostile_server.py) sends a token (and a
model id, and error bodies) carrying CSI, OSC 52 (clipboard write), OSC 8 (hyperlink), C1 controls and bidi
overrides. specview runs on a real pty against it; the bytes it writes must hold none of
those sequences, and their visible, harmless form (␛ …) must be on the screen.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.support.hostile_server import Event, Scenario, chat_chunk, hostile_server
from tests.support.pty_run import pty_process

SPECVIEW = Path(sys.executable).parent / "specview"
CLIPBOARD = "c3BlY3ZpZXctcHduZWQ="  # base64 "specview-pwned"
HOSTILE = (f"\x1b[2J\x1b[31;1;4mRED\x1b]52;c;{CLIPBOARD}\x07"
           "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
           "\x9b31m\u202eDESREVER\u202c\u2066iso\u2069\x07")
# what must never reach the terminal: the sequences as a terminal would act on them
FORBIDDEN = [b"\x1b[2J\x1b[31;1;4mRED", f"\x1b]52;c;{CLIPBOARD}".encode(), b"\x1b]8;;http://evil",
             "\u009b31m".encode(), "\u202e".encode(), "\u202c".encode(), "\u2066".encode(), "\u2069".encode()]
# their harmless form, drawn as text
VISIBLE = "␛]52;c;"


def scenario(mode: str) -> Scenario:
    """What the server answers: a hostile token (and model id), or a hostile error body."""
    models = [{"id": "model" + HOSTILE, "object": "model"}]
    if mode == "http-error":
        body = {"error": {"message": "CUDA out of memory " + HOSTILE + " [b]markup[/b]"}}
        return Scenario(models=models, post_status=500, post_body=json.dumps(body).encode(),
                        content_type="application/json")
    events: list[Event] = [chat_chunk(piece) for piece in ("Hello", " there", HOSTILE, " world", ".")]
    if mode == "stream-error":
        events.append({"error": {"message": "mid-stream failure " + HOSTILE, "code": 500}})
    return Scenario(models=models, events=events, done=mode != "stream-error")


def run_app(mode: str, tmp_path: Path, *ready: str) -> bytes:
    """specview against the server playing `mode`, on a 200×40 pty until each of `ready` is on screen,
    then q; every byte it wrote."""
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "TERM": "xterm-256color", "COLORTERM": "truecolor",
           "SPECVIEW_CONFIG": str(tmp_path / "no-config.toml"), "TEXTUAL_ANIMATIONS": "none"}
    with hostile_server() as server:
        server.scenario = scenario(mode)
        argv = [str(SPECVIEW), "--url", server.url, "--server", "generic", "--read-timeout", "10"]
        with pty_process(argv, env, cols=200, rows=40) as app:
            app.wait_for(lambda out: all(part in out for part in ready), timeout=60, what=" and ".join(ready))
            app.write(b"q")
            assert app.wait_exit() == 0
            return bytes(app.output)


def assert_inert(output: bytes) -> None:
    found = [seq for seq in FORBIDDEN if seq in output]
    assert not found, f"escape sequences from the server reached the terminal: {found}"


def test_a_hostile_token_and_model_id_never_reach_the_terminal(tmp_path: Path) -> None:
    output = run_app("stream", tmp_path, "world", VISIBLE)
    assert_inert(output)
    text = output.decode("utf-8", errors="replace")
    assert "␛[2J␛[31;1;4mRED" in text and "␛]8;;http://evil.example/␛\\click" in text
    print(f"{len(output)} bytes from the app checked; the token was drawn as text")


@pytest.mark.parametrize("mode", ["http-error", "stream-error"])
def test_hostile_server_errors_in_notifications_never_reach_the_terminal(mode: str, tmp_path: Path) -> None:
    # notifications wrap their lines: look for words, not whole sentences
    ready = ("CUDA", "[b]markup") if mode == "http-error" else ("mid-stream", VISIBLE)
    output = run_app(mode, tmp_path, *ready)  # "[b]markup" on screen: the error's markup is shown as text
    assert_inert(output)
