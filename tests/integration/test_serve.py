"""`specview serve` in a real browser: headless Chromium opens the page and sees the app's first frame.

The screenshot is kept as a test artefact (its path is printed; pytest keeps the last runs'
temp folders). The page opens only with the token printed at start, and carries it on: to
the app's WebSocket in its URL, to downloads in a cookie. A non-loopback address is refused
without --public, and warned about with it. (Refused requests: tests/hostile/test_hostile_serve.py.)
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from pathlib import Path

from tests.support.chromium import Page, chromium
from tests.support.limited_run import base_env
from tests.support.serve_run import SPECVIEW, free_port, serving

FRAME_TIMEOUT_S = 60.0


def stream_text(screen: str) -> str:
    """The stream panel's rows (its border, legend and the side panel left out)."""
    rows = screen.splitlines()
    top = next((i for i, row in enumerate(rows) if "╭─ stream" in row), len(rows))
    bottom = next((i for i, row in enumerate(rows) if i > top and row.startswith("╰")), top)
    return "\n".join(row.split("││")[0] for row in rows[top + 1:bottom])


GAUGES = re.compile(r"acceptance α\s+[01]\.\d\d")


async def first_frame(page: Page, tmp_path: Path) -> tuple[dict[str, object], Path]:
    """The page's terminal once the app's first frame is on it, and a screenshot."""
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


def test_served_app_first_frame_in_chromium(tmp_path: Path) -> None:
    async def look(base: str, url: str) -> tuple[str, dict[str, object], Path, int]:
        async with chromium(tmp_path / "browser") as page:
            await page.send("Page.navigate", url=f"{base}/")  # without the token
            refused = await page.wait_for("location.protocol === 'http:' && document.readyState === 'complete'"
                                          " && document.body && document.body.innerText")
            await page.send("Page.navigate", url=url)
            screen, shot = await first_frame(page, tmp_path)
            # the page's cookie lets its downloads through: an unknown key is "not found", not refused
            download = await page.evaluate("fetch('/download/no-such-key').then(r => r.status)", wait=True)
            return str(refused), screen, shot, int(download)

    with serving(tmp_path, "--", "--preset", "glm-5.2-mtp") as served:
        refused, screen, shot, download = asyncio.run(look(served.base, served.url))
        log = served.stderr_lines()
    assert refused.startswith("403: Forbidden. Open the address `specview serve` printed")
    assert download == 404
    assert log == ["specview: serve: refused GET / from 127.0.0.1 (403): no token"], log
    text = str(screen["text"])
    for label in ("glm-5.2-mtp", "acceptance α", "τ per round", "α by position", "discardedˣ"):
        assert label in text, label
    assert shot.stat().st_size > 10_000
    print(f"page terminal {screen['cols']}×{screen['rows']}, {screen['struck']} struck cells; screenshot: {shot}")


def test_non_local_bind_is_refused_without_public(tmp_path: Path) -> None:
    done = subprocess.run([str(SPECVIEW), "serve", "--host", "0.0.0.0", "--port", str(free_port())],
                          env=base_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "refusing to serve on 0.0.0.0" in lines[0] and "--public" in lines[0], lines


def test_every_address_needs_the_public_url(tmp_path: Path) -> None:
    done = subprocess.run([str(SPECVIEW), "serve", "--host", "0.0.0.0", "--public", "--port", str(free_port())],
                          env=base_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "serving on 0.0.0.0 needs --public-url" in lines[0], lines


def test_public_bind_warns(tmp_path: Path) -> None:
    port = free_port()
    with serving(tmp_path, "--host", "0.0.0.0", "--public", "--public-url", f"http://127.0.0.1:{port}",
                 port=port) as served:
        log = served.err.read_text(errors="replace")
    assert "warning: serving on 0.0.0.0" in log and "anyone who can reach" in log
    assert served.token not in log


def test_a_bad_served_command_line_fails_before_serving(tmp_path: Path) -> None:
    done = subprocess.run([str(SPECVIEW), "serve", "--port", str(free_port()), "--", "--gamma", "99"],
                          env=base_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("specview: error: argument --gamma") and "Traceback" not in done.stderr
