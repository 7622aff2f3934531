"""`specview serve` in a real browser: headless Chromium opens the page and sees the app's first frame.

The screenshot is kept as a test artefact (its path is printed; pytest keeps the last runs'
temp folders). A non-loopback address is refused without --public, and warned about with it.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from chromium import chromium
from processes import stop

SPECVIEW = Path(sys.executable).parent / "specview"
START_TIMEOUT_S = 30.0
FRAME_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "SPECVIEW_CONFIG": str(tmp / "no-config.toml"), "TEXTUAL_ANIMATIONS": "none"}


@contextmanager
def serving(tmp: Path, *args: str) -> Iterator[str]:
    """`specview serve --port N ARGS…` until the context ends; its URL."""
    port = free_port()
    log = (tmp / "serve.log").open("wb")
    # a session of its own: the server and every app it started end together, by the group's id
    proc = subprocess.Popen([str(SPECVIEW), "serve", "--port", str(port), *args], env=env(tmp),
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert proc.poll() is None, (tmp / "serve.log").read_text(errors="replace")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "specview serve did not listen in time"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/"
    finally:
        stop(proc, group=True)
        log.close()


def stream_text(screen: str) -> str:
    """The stream panel's rows (its border, legend and the side panel left out)."""
    rows = screen.splitlines()
    top = next((i for i, row in enumerate(rows) if "╭─ stream" in row), len(rows))
    bottom = next((i for i, row in enumerate(rows) if i > top and row.startswith("╰")), top)
    return "\n".join(row.split("││")[0] for row in rows[top + 1:bottom])


GAUGES = re.compile(r"acceptance α\s+[01]\.\d\d")


def test_served_app_first_frame_in_chromium(tmp_path: Path) -> None:
    async def look(url: str) -> tuple[dict[str, object], Path]:
        async with chromium(tmp_path / "browser") as page:
            await page.send("Page.navigate", url=url)
            deadline = time.monotonic() + FRAME_TIMEOUT_S
            screen = None
            while time.monotonic() < deadline:
                screen = await page.terminal()
                if screen and isinstance(screen["text"], str):
                    stream = stream_text(screen["text"])
                    if "▸" in stream and "⁺" in stream and GAUGES.search(screen["text"]) and screen["struck"]:
                        return screen, await page.screenshot(tmp_path / "serve.png")
                await asyncio.sleep(0.2)
            shot = await page.screenshot(tmp_path / "serve-timeout.png")
            raise AssertionError(f"no first frame in the page's terminal (screenshot {shot}):\n{screen}")

    with serving(tmp_path, "--", "--preset", "glm-5.2-mtp") as url:
        screen, shot = asyncio.run(look(url))
    text = str(screen["text"])
    for label in ("glm-5.2-mtp", "acceptance α", "τ per round", "accepted by position", "discardedˣ"):
        assert label in text, label
    assert shot.stat().st_size > 10_000
    print(f"page terminal {screen['cols']}×{screen['rows']}, {screen['struck']} struck cells; screenshot: {shot}")


def test_non_local_bind_is_refused_without_public(tmp_path: Path) -> None:
    done = subprocess.run([str(SPECVIEW), "serve", "--host", "0.0.0.0", "--port", str(free_port())],
                          env=env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "refusing to serve on 0.0.0.0" in lines[0] and "--public" in lines[0], lines


def test_public_bind_warns(tmp_path: Path) -> None:
    with serving(tmp_path, "--host", "0.0.0.0", "--public"):
        log = (tmp_path / "serve.log").read_text(errors="replace")
    assert "warning: serving on 0.0.0.0" in log and "anyone who can reach" in log


def test_a_bad_served_command_line_fails_before_serving(tmp_path: Path) -> None:
    done = subprocess.run([str(SPECVIEW), "serve", "--port", str(free_port()), "--", "--gamma", "99"],
                          env=env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("specview: error: argument --gamma") and "Traceback" not in done.stderr
