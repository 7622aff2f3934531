"""textual-serve's private names (an optional extra: only `specview serve` imports this module).

textual-serve builds its aiohttp application in `Server._make_app` and offers no public hook to add
a middleware or a route before the application freezes; the gate in front of every request
(features/serve/gate.py) needs both.
"""

from __future__ import annotations

from aiohttp import web
from textual_serve.server import Server

from specview.compat import Private

PRIVATE = (
    Private("textual_serve.server:Server", "_make_app", "builds the aiohttp application: AppHookServer"),
)


class AppHookServer(Server):
    """textual-serve's server, whose aiohttp application `extend_app` finishes before it serves."""

    def extend_app(self, app: web.Application) -> None:
        """Add middlewares and routes to the application textual-serve made (override)."""

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        self.extend_app(app)
        return app
