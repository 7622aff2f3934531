"""What every hostile case asserts: one clean line, no traceback, no escape from the input on the
terminal, no secret in any file the run wrote. The payloads are the hostile inputs' markers."""

from __future__ import annotations

import json
from pathlib import Path

OSC52 = "\x1b]52;c;SE9TVElMRQ==\x07"  # write "HOSTILE" to the clipboard
TITLE = "\x1b]0;PWNED-TITLE\x07"  # set the window title
CLEAR = "\x1b[2J\x1b[?1049l"  # clear the screen, leave the alternate screen
C1 = "\x9b31m\x9d0;C1-TITLE\x9c"  # the same through 8-bit C1 controls
BIDI = "\u202eevil\u202c\u2066x\u2069"
INVISIBLE = "\u200b\ufeff\U000e0041"
MARKUP = "[/][link=https://evil.example]click[/link][@click=app.quit]x[/]"
ESCAPES = OSC52 + TITLE + CLEAR + C1
HOSTILE = ESCAPES + BIDI + INVISIBLE + MARKUP + "\x00\x07\r"
SECRET = "sk-TESTSECRET-0123456789abcdef"

# Byte strings that may only reach the terminal if an input's escape got through (Textual writes
# none of them itself: it sets no title, copies nothing here and makes no OSC 8 links).
FORBIDDEN = (b"\x1b]52", b"PWNED-TITLE\x07", b"\x1b]0;", b"\x1b]2;", b"\x1b]8;", b"\xc2\x9b", b"\xc2\x9d",
             "\u202e".encode(), "\u2066".encode(), "\u200b".encode(), "\ufeff".encode(), b"Traceback")


def assert_terminal_clean(output: bytes) -> None:
    """No escape sequence from the input, no traceback, in what the terminal (or stderr) received."""
    for needle in FORBIDDEN:
        assert needle not in output, f"{needle!r} reached the terminal"


def one_error_line(stderr: str, prefix: str = "specview: error: ") -> str:
    """The single line a failing command printed (asserted to be one clean line)."""
    assert_terminal_clean(stderr.encode())
    lines = stderr.strip("\n").splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{stderr}"
    assert lines[0].startswith(prefix), lines[0]
    assert "\x1b" not in lines[0] and "\x07" not in lines[0]
    return lines[0]


def assert_no_secret(root: Path, secret: str = SECRET) -> list[Path]:
    """No file under `root` holds the secret (or its first 8 characters: a cut key); the files."""
    files = [p for p in root.rglob("*") if p.is_file()]
    for path in files:
        data = path.read_bytes()
        for needle in (secret, secret[:8]):
            assert needle.encode() not in data, f"{path} holds the secret"
    return files


def json_lines(stdout: bytes) -> list[dict[str, object]]:
    """Every stdout line decoded as strict JSON (no NaN), no raw escape byte in them."""
    assert_terminal_clean(stdout)
    assert b"\x1b" not in stdout
    out = []
    for line in stdout.decode("utf-8").splitlines():
        out.append(json.loads(line, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name))))
    return out
