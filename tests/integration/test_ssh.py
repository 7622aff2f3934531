"""Over SSH for real: a throwaway sshd on 127.0.0.1, `ssh -tt` inside tmux, the project's specview there.

Each terminal type a person may have (xterm-256color, xterm with 16 colours, NO_COLOR) gets the
same checks: the gauges and the marked tokens are on the captured screen, every status keeps a
cue that is not colour, and pause, step, the preset picker, help and quit each take effect.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from specview.catalog.presets import load_presets
from tests.support.screen_cues import status_colours, stream_rows
from tests.support.sshd import SshServer, sshd
from tests.support.tmux_pane import SGR, TmuxPane, sgr_codes, tmux_pane

ROOT = Path(__file__).resolve().parents[2]
# the project's own specview (the venv running the tests), not whatever a login shell finds
SPECVIEW = Path(sys.executable).parent / "specview"
STRIKE = 9
TERMINALS = {
    "xterm-256color": {"TERM": "xterm-256color"},
    "xterm-16-colours": {"TERM": "xterm"},
    "no-color": {"TERM": "xterm-256color", "NO_COLOR": "1"},
}
# a stream line holds the marks only once enough tokens arrived
MARKED = re.compile(r"▸\S")
BONUS = re.compile(r"\S⁺")
DISCARDED = re.compile(r"\Sˣ")
GAUGES = re.compile(r"acceptance α\s+[01]\.\d\d(?:.*\n){1,4}.*τ per round\s+\d+\.\d\d")  # notes may sit between


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    with sshd(tmp_path_factory.mktemp("sshd")) as running:
        yield running


def remote_command(tmp: Path, extra_env: dict[str, str]) -> str:
    """What the ssh session runs: the venv's specview, no user config, the terminal's own env."""
    env = {"SPECVIEW_CONFIG": str(tmp / "no-config.toml"), "TEXTUAL_ANIMATIONS": "none", **extra_env}
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    return f"cd {shlex.quote(str(ROOT))} && exec env {assignments} {shlex.quote(str(SPECVIEW))} --preset glm-5.2-mtp"


@pytest.mark.parametrize("terminal", list(TERMINALS))
def test_live_view_over_ssh(server: SshServer, tmp_path: Path, terminal: str) -> None:
    term = TERMINALS[terminal]
    remote_env = {k: v for k, v in term.items() if k != "TERM"}
    # the client's TERM is what sshd gives the remote pty (pty-req), as for a person's terminal
    client_env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "TERM": term["TERM"]}
    command = server.ssh(remote_command(tmp_path, remote_env))
    with tmux_pane(tmp_path / "tmux", command, 130, 36, client_env) as pane:
        screen = pane.wait_for(first_frame, timeout=60, escapes=True, what="gauges and marked tokens")
        plain = SGR.sub("", screen)
        found = check_screen(terminal, screen, plain)
        print(f"[{terminal}] cues found: {', '.join(found)}")
        check_keys(pane, terminal)


def first_frame(screen: str) -> bool:
    """Gauges with values and tokens with each mark are drawn (the stream goes on until they are: which
    round first shows a discarded draft depends on the seed's draws)."""
    stream = "\n".join(stream_rows(screen))
    return bool(MARKED.search(stream) and BONUS.search(stream) and DISCARDED.search(stream)
                and GAUGES.search(SGR.sub("", screen)))


def check_screen(terminal: str, screen: str, plain: str) -> list[str]:
    """Gauges and marks on the screen, and the colours the terminal type allows; the cues found."""
    for label in ("acceptance α", "τ per round", "tokens / s", "α by position", "glm-5.2-mtp"):
        assert label in plain, label
    assert GAUGES.search(plain), "the α and τ gauges have values"
    codes = sgr_codes(screen)
    assert STRIKE in codes, "rejected drafts are struck through"
    if terminal == "xterm-16-colours":
        assert not codes & {38, 48}, f"only the 16 colours: {sorted(codes)}"
        assert codes & set(range(30, 38)) | codes & set(range(90, 98)), "16-colour foregrounds"
    if terminal == "no-color":
        assert_grey(screen)
    else:
        colours = status_colours(screen)
        assert len(set(colours.values())) == 4, f"four statuses, four colours: {colours}"
        print(f"[{terminal}] colours (SGR): " + ", ".join(f"{k} {v}" for k, v in colours.items()))
    found = ["strike (SGR 9)"]
    stream = "\n".join(stream_rows(plain))
    found += ["▸corrected"] if MARKED.search(stream) else []
    found += ["bonus⁺"] if BONUS.search(stream) else []
    found += ["discardedˣ"] if DISCARDED.search(stream) else []  # drafts after a rejection, never verified
    assert len(found) == 4, found
    return found


def assert_grey(screen: str) -> None:
    """NO_COLOR: whatever colour codes remain are greys (Textual's monochrome filter)."""
    for match in re.finditer(r"\x1b\[[0-9;]*?(?:38|48);2;(\d+);(\d+);(\d+)", screen):
        r, g, b = (int(v) for v in match.groups())
        assert max(r, g, b) - min(r, g, b) <= 2, f"a colour under NO_COLOR: {match.group(0)!r}"
    for match in re.finditer(r"\x1b\[[0-9;]*?(?:38|48);5;(\d+)", screen):
        index = int(match.group(1))
        assert index in (0, 7, 8, 15, 16, 231) or index >= 232, f"a colour under NO_COLOR: {match.group(0)!r}"


def check_keys(pane: TmuxPane, terminal: str) -> None:
    """Pause, step, the preset picker, help and quit, each asserted on the screen."""
    pane.keys("Space")
    pane.wait_text("paused")
    settled = stable_stream(pane)
    print(f"[{terminal}] space: paused")
    pane.keys("n")
    pane.wait_for(lambda s: stream_rows(s) != settled, what="one more round after n")
    assert "paused" in pane.capture()
    print(f"[{terminal}] n: one round drawn while paused")
    first = next(iter(load_presets()))
    pane.keys("p")
    pane.wait_text("choose a preset")
    pane.keys("Home", "Enter")
    pane.wait_for(lambda s: f"· {first} ·" in s.splitlines()[0], what=f"status line names {first}")
    print(f"[{terminal}] p: picker shown, {first} chosen")
    pane.keys("?")
    pane.wait_text("specview — help")
    pane.keys("Escape")
    pane.wait_for(lambda s: "specview — help" not in s, what="help closed")
    print(f"[{terminal}] ?: help shown and closed")
    pane.keys("q")
    status = pane.wait_exit()
    assert status == 0, f"exit status {status}"
    print(f"[{terminal}] q: specview and the ssh session ended (exit 0)")


def stable_stream(pane: TmuxPane) -> list[str]:
    """The stream once it stopped changing (a paused run may still draw the round in flight)."""
    previous = stream_rows(pane.capture())
    for _ in range(50):
        time.sleep(0.3)
        now = stream_rows(pane.capture())
        if now == previous:
            return now
        previous = now
    raise AssertionError("the stream kept changing while paused")
