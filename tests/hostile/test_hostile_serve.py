"""`specview serve` against requests a hostile web page (or a client of its own) can make.

Browsers apply no same-origin rule to WebSockets and let a rebinding page reach 127.0.0.1
under its own name. So each case carries all but one of what the page has (the token, the
server's Host and Origin) and asserts: the status (403, 429 for the session cap), exactly one
clean line on serve's stderr naming the reason (no escape from the request, never the token),
no specview process started for it, an answer in bounded time; the whole module writes no
file in serve's folder and shows the token only on the URL line printed at start.
"""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.support.hostile_checks import HOSTILE, assert_terminal_clean
from tests.support.limited_run import MEMORY_LIMIT
from tests.support.serve_run import Served, serving

ANSWER_S = 10.0  # a refusal is immediate; this only bounds a hang
EVIL = "http://evil.example"
LINE = re.compile(r"specview: serve: refused (GET /\S*|a malformed request) from 127\.0\.0\.1 \((\d{3})\): (.+)")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("serve")
    with serving(tmp, memory=MEMORY_LIMIT) as running:
        yield running


def wrong(token: str) -> str:
    """`token` with its last character changed: a near miss, most of it right."""
    return token[:-1] + ("A" if token[-1] != "A" else "B")


def ws_url(served: Served, path: str) -> str:
    return f"ws://127.0.0.1:{served.port}{path}"


async def page_status(served: Served, query: str, headers: dict[str, str] | None = None) -> int:
    async with aiohttp.ClientSession() as http, http.get(f"{served.base}/{query}", headers=headers) as response:
        return response.status


async def ws_status(served: Served, path: str, *, origin: str | None, headers: dict[str, str] | None = None) -> int:
    """The handshake's status (101: a session opened, and is closed at once)."""
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(ws_url(served, path), origin=origin, headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def refused(served: Served, attempt: Callable[[], Awaitable[int]], status: int = 403) -> str:
    """Run `attempt`; assert its status, the one clean log line it caused and that no app started; the reason."""
    before = len(served.stderr_lines())
    started = time.monotonic()
    got = asyncio.run(asyncio.wait_for(attempt(), ANSWER_S))
    assert got == status
    assert time.monotonic() - started < ANSWER_S
    new = served.stderr_lines()[before:]  # the line is written before the answer is sent
    assert len(new) == 1, new
    assert_terminal_clean(new[0].encode())
    assert served.token not in new[0] and served.token[:8] not in new[0]
    found = LINE.fullmatch(new[0])
    assert found is not None and int(found.group(2)) == status, new[0]
    assert served.apps() == 0
    return found.group(3)


def test_the_page_needs_the_token(served: Served) -> None:
    assert refused(served, lambda: page_status(served, "")) == "no token"
    assert refused(served, lambda: page_status(served, "?token=")) == "wrong token"
    near = wrong(served.token)
    assert refused(served, lambda: page_status(served, f"?token={near}")) == "wrong token"


def test_a_rebinding_host_is_refused_even_with_the_token(served: Served) -> None:
    host = f"evil.example:{served.port}"
    reason = refused(served, lambda: page_status(served, f"?token={served.token}", {"Host": host}))
    assert reason == f"Host '{host}' is not this server"
    # a rebinding page's WebSocket names the page's host, and its origin
    reason = refused(served, lambda: ws_status(served, f"/ws/{served.token}", origin=f"http://{host}",
                                               headers={"Host": host}))
    assert reason == f"Host '{host}' is not this server"


def test_a_foreign_origin_is_refused_even_with_the_token(served: Served) -> None:
    reason = refused(served, lambda: page_status(served, f"?token={served.token}", {"Origin": EVIL}))
    assert reason == f"Origin '{EVIL}' is not this server"
    # another port of this host is another site's page too
    other = f"http://127.0.0.1:{served.port + 1}"
    for path, origin in ((f"/ws/{served.token}", EVIL), (f"/ws?token={served.token}", EVIL),
                         (f"/ws/{served.token}", other)):
        reason = refused(served, lambda p=path, o=origin: ws_status(served, p, origin=o))
        assert reason == f"Origin '{origin}' is not this server"


def test_the_websocket_needs_the_token_and_an_origin(served: Served) -> None:
    assert refused(served, lambda: ws_status(served, "/ws", origin=served.base)) == "no token"
    near = wrong(served.token)
    assert refused(served, lambda: ws_status(served, f"/ws/{near}", origin=served.base)) == "wrong token"
    assert refused(served, lambda: ws_status(served, f"/ws?token={near}", origin=served.base)) == "wrong token"
    assert refused(served, lambda: ws_status(served, f"/ws/{served.token}", origin=None)) == "no Origin header"


def test_downloads_need_the_pages_cookie(served: Served) -> None:
    async def download(cookie: str | None) -> int:
        cookies = {f"specview-download-{served.port}": cookie} if cookie is not None else None
        async with aiohttp.ClientSession(cookies=cookies) as http, \
                http.get(f"{served.base}/download/0123456789abcdef") as response:
            return response.status

    assert refused(served, lambda: download(None)) == "no token"
    assert refused(served, lambda: download(wrong(served.token))) == "no token"


def test_static_assets_stay_open_and_hold_nothing_of_the_app(served: Served) -> None:
    async def script() -> tuple[int, bytes]:
        async with aiohttp.ClientSession() as http, http.get(f"{served.base}/static/js/textual.js") as response:
            return response.status, await response.read()

    before = served.stderr_lines()
    status, body = asyncio.run(script())
    assert status == 200 and b"xterm" in body and served.token.encode() not in body
    assert served.stderr_lines() == before


def raw_request(served: Served, request: bytes) -> int:
    """Send `request` as is (no client library would send these bytes); the status answered."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=ANSWER_S) as conn:
        conn.sendall(request)
        head = conn.recv(200)
    return int(head.split(b" ", 2)[1])


@pytest.mark.parametrize("header", ["Host", "Origin"])
def test_hostile_header_values_never_reach_the_terminal(served: Served, header: str) -> None:
    # what a parser lets through (UTF-8: bidi, invisible, C1 controls as characters, markup) reaches
    # the gate and is logged escaped; raw controls are refused by the parser, in one line too
    printable = "".join(ch for ch in HOSTILE if ord(ch) >= 0x20 and ord(ch) != 0x7F)
    for value, status in ((printable, 403), (HOSTILE, 400)):
        host = f"127.0.0.1:{served.port}" if header == "Origin" else value
        lines = [f"GET /?token={served.token} HTTP/1.1", f"Host: {host}"]
        if header == "Origin":
            lines.append(f"Origin: {value}")
        request = ("\r\n".join(lines) + "\r\nConnection: close\r\n\r\n").encode("utf-8", "surrogatepass")

        async def attempt(request: bytes = request) -> int:
            return await asyncio.to_thread(raw_request, served, request)

        reason = refused(served, attempt, status)
        assert (f"{header} '" in reason) if status == 403 else ("header value" in reason), reason


def test_a_burst_of_refused_sockets_starts_nothing(served: Served) -> None:
    async def burst() -> list[int]:
        async with aiohttp.ClientSession() as http:
            async def one(i: int) -> int:
                try:
                    async with http.ws_connect(ws_url(served, f"/ws/{wrong(served.token)}"), origin=EVIL):
                        return 101
                except aiohttp.WSServerHandshakeError as exc:
                    return exc.status

            return await asyncio.gather(*(one(i) for i in range(200)))

    before = len(served.stderr_lines())
    rss = served.rss()
    started = time.monotonic()
    statuses = asyncio.run(asyncio.wait_for(burst(), 60))
    elapsed = time.monotonic() - started
    assert statuses == [403] * 200
    new = served.stderr_lines()[before:]
    assert len(new) == 200 and all(line.endswith(f"(403): Origin '{EVIL}' is not this server") for line in new)
    assert served.apps() == 0
    grown = served.rss() - rss
    print(f"200 refused sockets in {elapsed:.2f} s; serve's RSS grew by {grown / 2**20:.1f} MiB")
    assert grown < 32 * 2**20


def test_nothing_written_and_the_token_only_on_the_url_line(served: Served) -> None:
    async def page() -> str:
        async with aiohttp.ClientSession() as http, http.get(served.url) as response:
            assert response.status == 200
            return response.cookies[f"specview-download-{served.port}"].value

    download_key = asyncio.run(page())
    assert list(served.cwd.iterdir()) == [] and not served.home.exists()
    printed = served.out.read_text(errors="replace")
    assert printed.count(served.token) == 1 and printed.startswith("specview serve: open ")
    logged = served.err.read_text(errors="replace")
    assert served.token not in logged and download_key not in logged and download_key not in printed


def test_a_third_session_is_refused_until_one_closes(tmp_path: Path) -> None:
    async def until(predicate: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            await asyncio.sleep(0.05)

    async def scenario(served: Served) -> int:
        path = f"/ws/{served.token}?width=100&height=30"
        url = ws_url(served, path)
        async with aiohttp.ClientSession() as http:
            first = await http.ws_connect(url, origin=served.base)
            second = await http.ws_connect(url, origin=served.base)
            await until(lambda: served.apps() == 2, "two apps")
            assert refused_in_loop(served, await ws_status(served, path, origin=served.base)) == 429
            assert served.apps() == 2
            await first.close()
            await until(lambda: served.apps() == 1, "the first session's app to end")
            # its slot is free once the server has seen that app end, a moment after it exits: a try
            # before that is refused, with its own line
            tries = 0
            while True:
                tries += 1
                try:
                    third = await http.ws_connect(url, origin=served.base)
                    break
                except aiohttp.WSServerHandshakeError as exc:
                    assert refused_in_loop(served, exc.status) == 429
                    assert tries < 600, "the closed session's slot never came back"
                    await asyncio.sleep(0.1)
            await until(lambda: served.apps() == 2, "two apps again")
            for ws in (second, third):
                await ws.close()
            await until(lambda: served.apps() == 0, "every app to end")
            return tries

    def refused_in_loop(served: Served, status: int) -> int:
        line = served.stderr_lines()[-1]
        assert line.endswith(f"({status}): all 2 sessions are in use (--max-sessions)"), line
        assert_terminal_clean(line.encode())
        return status

    with serving(tmp_path, memory=MEMORY_LIMIT) as served:
        tries = asyncio.run(scenario(served))
        lines = served.stderr_lines()
    assert len(lines) == tries  # one line per refusal: the third session's, then each early retry
    assert all("(429): all 2 sessions are in use" in line for line in lines)
