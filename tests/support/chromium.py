"""Headless Chromium driven through its DevTools protocol, for tests that look at a page as a person would.

The browser gets a new empty profile, no network of its own (no sync, updates, QUIC or
background requests) and is ended by process id when the context closes. `terminal_text()`
reads what an xterm.js terminal on the page shows (its public buffer API), so a test can
assert on the screen of an app served to the browser.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import aiohttp

from tests.support.processes import stop

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--mute-audio", "--remote-debugging-port=0")
START_TIMEOUT_S = 30.0

# xterm.js keeps its Terminal private; this catches it when an object first gets a `terminal`
# that has a buffer (textual-serve's page does `this.terminal = new Terminal(...)`).
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer) (window.__terminals = window.__terminals || []).push(value);
  },
});
"""
READ_TERMINAL = """
(() => {
  const term = (window.__terminals || [])[0];
  if (!term) return null;
  const buffer = term.buffer.active, rows = [];
  let struck = 0;
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    if (!line) { rows.push(""); continue; }
    rows.push(line.translateToString(true));
    for (let x = 0; x < term.cols; x++) {
      const cell = line.getCell(x);
      if (cell && cell.isStrikethrough()) struck++;
    }
  }
  return {text: rows.join("\\n"), cols: term.cols, rows: term.rows, struck};
})()
"""


class Page:
    """One browser tab over a DevTools websocket."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self._ids = itertools.count(1)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command; its result (events in between are skipped)."""
        ident = next(self._ids)
        await self.ws.send_json({"id": ident, "method": method, "params": params})
        while True:
            message = await asyncio.wait_for(self.ws.receive_json(), timeout=30)
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    async def evaluate(self, expression: str, *, wait: bool = False) -> Any:
        """The value of a JavaScript expression in the page (a promise's once settled, when `wait`)."""
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=wait)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        """The first truthy value of `expression`, polled in the page; fails after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not (value := await self.evaluate(expression)):
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never had {expression}")
            await asyncio.sleep(0.1)
        return value

    async def terminal(self) -> dict[str, Any] | None:
        """What the page's terminal shows: {text, cols, rows, struck}, or None before it exists."""
        value = await self.evaluate(READ_TERMINAL)
        return value if isinstance(value, dict) else None

    async def screenshot(self, path: Path) -> Path:
        """Save a PNG of the page."""
        shot = await self.send("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
        return path


@asynccontextmanager
async def chromium(folder: Path, width: int = 1400, height: int = 900) -> AsyncIterator[Page]:
    """Start headless Chromium with a new profile in `folder`; a Page ready to navigate."""
    profile = folder / "profile"
    profile.mkdir(parents=True, exist_ok=True)
    log = (folder / "chromium.log").open("wb")
    proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                             "about:blank"], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                            start_new_session=True)
    try:
        port = _devtools_port(profile, proc)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/json/list") as response:
                targets = json.loads(await response.text())
            page_url = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
            async with http.ws_connect(page_url, max_msg_size=0) as ws:
                page = Page(ws)
                await page.send("Page.enable")
                await page.send("Runtime.enable")
                await page.send("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINAL)
                yield page
    finally:
        stop(proc, group=True)  # the browser's helper processes share its session
        log.close()


def _devtools_port(profile: Path, proc: subprocess.Popen[bytes]) -> int:
    """The DevTools port Chromium chose (it writes it to DevToolsActivePort in the profile)."""
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"chromium exited with {proc.returncode}")
        with suppress(OSError, ValueError, IndexError):
            lines = marker.read_text().splitlines()
            if len(lines) >= 2:  # port, then the browser target path: the file is complete
                return int(lines[0])
        time.sleep(0.05)
    raise RuntimeError("chromium did not open its DevTools port in time")
