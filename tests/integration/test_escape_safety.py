"""No escape sequence from a server reaches the terminal: every byte the running app writes is checked.

A tiny OpenAI-compatible SSE server on 127.0.0.1 sends a token (and a model id, and error
bodies) carrying CSI, OSC 52 (clipboard write), OSC 8 (hyperlink), C1 controls and bidi
overrides. specview runs on a real pty against it; the bytes it writes must hold none of
those sequences, and their visible, harmless form (␛ …) must be on the screen.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pty_run import pty_process

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


class SseServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mode: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = mode

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: SseServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def _json(self, code: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": "model" + HOSTILE, "object": "model"}]})
        else:
            self._json(404, {"error": {"message": "not found " + HOSTILE}})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.server.mode == "http-error":
            self._json(500, {"error": {"message": "CUDA out of memory " + HOSTILE + " [b]markup[/b]"}})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        pieces = ["Hello", " there", HOSTILE, " world", "."]
        for piece in pieces:
            chunk = {"object": "chat.completion.chunk", "model": "m",
                     "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        if self.server.mode == "stream-error":
            error = {"error": {"message": "mid-stream failure " + HOSTILE, "code": 500}}
            self.wfile.write(f"data: {json.dumps(error)}\n\n".encode())
        else:
            done = {"object": "chat.completion.chunk", "model": "m",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            self.wfile.write(f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode())
        self.wfile.flush()
        self.close_connection = True


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[SseServer]:
    httpd = SseServer(request.param)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()


def run_app(server: SseServer, tmp_path: Path, *ready: str) -> bytes:
    """specview against `server` on a 200×40 pty until each of `ready` is on screen, then q; every byte written."""
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "TERM": "xterm-256color", "COLORTERM": "truecolor",
           "SPECVIEW_CONFIG": str(tmp_path / "no-config.toml"), "TEXTUAL_ANIMATIONS": "none"}
    argv = [str(SPECVIEW), "--url", server.url, "--server", "generic", "--read-timeout", "10"]
    with pty_process(argv, env, cols=200, rows=40) as app:
        app.wait_for(lambda out: all(part in out for part in ready), timeout=60, what=" and ".join(ready))
        app.write(b"q")
        assert app.wait_exit() == 0
        return bytes(app.output)


def assert_inert(output: bytes) -> None:
    found = [seq for seq in FORBIDDEN if seq in output]
    assert not found, f"escape sequences from the server reached the terminal: {found}"


@pytest.mark.parametrize("server", ["stream"], indirect=True)
def test_a_hostile_token_and_model_id_never_reach_the_terminal(server: SseServer, tmp_path: Path) -> None:
    output = run_app(server, tmp_path, "world", VISIBLE)
    assert_inert(output)
    text = output.decode("utf-8", errors="replace")
    assert "␛[2J␛[31;1;4mRED" in text and "␛]8;;http://evil.example/␛\\click" in text
    print(f"{len(output)} bytes from the app checked; the token was drawn as text")


@pytest.mark.parametrize("server", ["http-error", "stream-error"], indirect=True)
def test_hostile_server_errors_in_notifications_never_reach_the_terminal(server: SseServer, tmp_path: Path) -> None:
    # notifications wrap their lines: look for words, not whole sentences
    ready = ("CUDA", "[b]markup") if server.mode == "http-error" else ("mid-stream", VISIBLE)
    output = run_app(server, tmp_path, *ready)  # "[b]markup" on screen: the error's markup is shown as text
    assert_inert(output)
