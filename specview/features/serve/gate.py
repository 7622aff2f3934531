"""The aiohttp middleware that applies `Access` to every request `specview serve` answers.

In order: the request must name this server (`Host`, then a browser's `Origin`; a WebSocket
must carry one), carry the token unless it asks for a static asset, and find a free session
if it would start one. A refusal is answered before any handler runs, so no process starts
for it, and is told in one sanitised line on stderr that never quotes a token.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import NoReturn

from aiohttp import web

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize, shown
from specview.features.serve.access import Access, same_secret

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# textual-serve's /ws and our /ws/{token} (server.py): each starts a specview process
SESSION_ROUTES = frozenset({"websocket", "session"})
# textual-serve's script, styles, fonts and background image: nothing of the app is in them
OPEN_ROUTES = frozenset({"static"})
DOWNLOAD_ROUTE = "download"  # a file the app hands to the browser (a screenshot, ...)


def download_cookie(port: int) -> str:
    """The name of the cookie that lets the page's downloads through (browsers share cookies
    between the ports of one host, so each server names its own)."""
    return f"specview-download-{port}"


class Gate:
    """Refuses what `access` does not allow; counts the sessions it lets through."""

    def __init__(self, access: Access, cookie: str) -> None:
        self.access = access
        self.cookie = cookie
        self.sessions = 0

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        resource = request.match_info.route.resource
        route = resource.name if resource is not None else None  # None: no such path (404, 405)
        reason = self._refusal(request, route)
        if reason is not None:
            self._refuse(request, 403, reason)
        if route not in SESSION_ROUTES:
            return await handler(request)
        if self.sessions >= self.access.max_sessions:
            self._refuse(request, 429, f"all {self.access.max_sessions} sessions are in use (--max-sessions)")
        self.sessions += 1
        try:
            return await handler(request)
        finally:
            self.sessions -= 1

    def _refusal(self, request: web.Request, route: str | None) -> str | None:
        """Why `request` (for `route`) is forbidden, or None."""
        reason = (self.access.host_refusal(request.headers.get("Host"))
                  or self.access.origin_refusal(request.headers.get("Origin"), required=route in SESSION_ROUTES))
        if reason is not None or route is None or route in OPEN_ROUTES or self._download_cookie(request, route):
            return reason
        return self.access.token_refusal(request.match_info.get("token") or request.query.get("token"))

    def _download_cookie(self, request: web.Request, route: str) -> bool:
        cookie = request.cookies.get(self.cookie)
        return route == DOWNLOAD_ROUTE and cookie is not None and same_secret(cookie, self.access.download_key)

    def _refuse(self, request: web.Request, status: int, reason: str) -> NoReturn:
        resource = request.match_info.route.resource
        # the route's pattern (/ws/{token}), never the path itself: that may hold the token
        where = resource.canonical if resource is not None else shown(request.path)
        line = f"specview: serve: refused {request.method} {where} from {request.remote or '?'} ({status}): {reason}"
        print(sanitize(line, MAX_SHOWN, one_line=True), file=sys.stderr, flush=True)
        if status == 403:
            raise web.HTTPForbidden(text="403: Forbidden. Open the address `specview serve` printed: it carries "
                                         "the token.\n")
        raise web.HTTPTooManyRequests(text=f"429: Too Many Requests. All {self.access.max_sessions} sessions are in "
                                           "use: close a tab that shows specview, or restart `specview serve` with "
                                           "a larger --max-sessions.\n")
