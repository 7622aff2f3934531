"""textual-serve's Server with the gate in front and the token carried from the page to the app.

textual-serve's page opens `data-session-websocket-url + "?width=…"`, so the token rides in
the WebSocket's path (`/ws/{token}`), not its query. Its page builds download URLs itself,
without the token: a cookie of the page (HttpOnly, SameSite=Strict, path /download) carries
a second secret for those. Its logging is replaced: it printed every request's URL (so the
token) and tracebacks with their local variables (a request's repr holds its URL).
"""

from __future__ import annotations

import inspect
import logging
import sys
from typing import Any

import aiohttp_jinja2
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from textual_serve.server import Server

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.secrets import add_secret
from specview.boundary.text import sanitize
from specview.compat.serve_compat import AppHookServer
from specview.features.serve.access import Access
from specview.features.serve.gate import Gate, download_cookie

LOG_LIMIT = 8000  # characters of one log record (a traceback fits; a flood does not)


class SanitisingFormatter(logging.Formatter):
    """Every record masked (the token is a registered secret) and its control characters made
    visible; a request aiohttp could not parse is one line, as a refusal is, not a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            remote = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
            reason = exc.message.strip().splitlines()[0].rstrip(":") if exc.message.strip() else "unreadable"
            line = f"specview: serve: refused a malformed request from {remote} ({exc.code}): {reason}"
            return sanitize(line, MAX_SHOWN, one_line=True)
        return sanitize(super().format(record), LOG_LIMIT)


class GuardedServer(AppHookServer):
    """Serves `command` to browsers that name this server and carry the token, `access.max_sessions` at a time."""

    def __init__(self, command: str, *, host: str, port: int, public_url: str, access: Access) -> None:
        super().__init__(command, host=host, port=port, title="specview", public_url=public_url)
        self.public_url = self.public_url.rstrip("/")  # textual-serve appends "/ws", "/static/"
        self.access = access
        for secret in (access.token, access.download_key):
            add_secret(secret)
        self.cookie = download_cookie(port)
        self.gate = Gate(access, self.cookie)

    def initialize_logging(self) -> None:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(SanitisingFormatter("specview: serve: %(message)s"))
        # WARNING: aiohttp's access log (INFO) stays off, textual-serve's errors and warnings show
        logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)

    def extend_app(self, app: web.Application) -> None:
        app.middlewares.append(self.gate.middleware)
        app.router.add_get("/ws/{token}", self.handle_websocket, name="session")

    async def on_startup(self, app: web.Application) -> None:
        # the one line that shows the token; printed as is (sanitising would mask it)
        print(f"specview serve: open {sanitize(self.public_url, one_line=True)}/?token={self.access.token} "
              "in a browser (Ctrl+C stops)", flush=True)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        # textual-serve's own context (its handler undecorated), with the token in the WebSocket's path
        context: dict[str, Any] = await inspect.unwrap(Server.handle_index)(self, request)
        context["app_websocket_url"] = f"{context['app_websocket_url']}/{self.access.token}"
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.set_cookie(self.cookie, self.access.download_key, path="/download", httponly=True,
                            samesite="Strict")
        response.headers["Cache-Control"] = "no-store"  # the page holds the token
        response.headers["Referrer-Policy"] = "no-referrer"  # its URL holds it too
        return response
