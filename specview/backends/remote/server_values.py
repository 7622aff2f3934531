"""What a server sent that cannot be used, said once, and the method a server names late.

Every reader of a server's answers (the remote backend, `watch`'s source, the load client) raises
`bounds.Invalid` for a value that is not one (a negative count, NaN, a position past the bound);
`server_values` turns it into the one BackendError the user reads, naming the server, what it was
answering and the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from specview.backends.reason import reason_of
from specview.backends.remote.server_kind import Probe, ServerFacts, ServerKind
from specview.boundary.bounds import Invalid
from specview.kernel.errors import BackendError
from specview.texts.catalog import Phrase


@contextmanager
def server_values(root: str, what: object) -> Iterator[None]:
    """A value the server at `root` sent while `what` that cannot be used → one BackendError."""
    try:
        yield
    except Invalid as exc:
        raise BackendError("backenderr.server_values.unusable", root=root, what=what, reason=reason_of(exc)) from None


def learned_method(kind: ServerKind, conn: Probe, facts: ServerFacts) -> ServerFacts | None:
    """The facts with the speculative method, for a server that names it only once it has served a
    request (llama-server's /slots); None while it is still unknown, or known already."""
    if facts.method is not None or not facts.speculating:
        return None
    with server_values(conn.root, Phrase("backenderr.doing.method")):
        method = kind.learn_method(conn)
    return replace(facts, method=method) if method is not None else None
