"""`specview serve`: the app in a browser through textual-serve, usable only by whoever started it.

`access.py` holds the rules (the token, the addresses a request may name, the session cap),
`gate.py` applies them to every aiohttp request, `server.py` wires the gate and the token into
textual-serve's Server. The command itself is `specview/features/serve/command.py`.
"""
