"""Every server family specview knows, found rather than listed.

The kinds are the ServerKind instances registered through the plugin surface's group
`specview.server_kinds` (specview/plugins/): specview's own name the package of kind modules
(`backends/remote/kinds/`, one module each: adding an engine is one module there and its texts),
an installed package names an instance (`tinyengine = "specview_tinyengine:KIND"`). Detection
probes them by `priority`, lowest first; `generic`, which recognises every server, has the highest
(LAST) and comes last. A kind whose id or priority another took first, or whose priority is above
LAST, is left out with one line naming it: detection order is never left to the order files
happen to be found in.

The registry is read where the kinds are needed (a remote run, `watch`) or where their names are
listed (`--server`'s value and --help), never by a simulator run.
"""

from __future__ import annotations

from specview.backends.remote.server_kind import LAST, Probe, ServerFacts, ServerKind
from specview.features.live.real_run import ServerProgram
from specview.kernel.errors import BackendError
from specview.plugins.surface import Found, Group, units
from specview.texts.catalog import Phrase


def _refuse(kind: ServerKind, before: list[Found[ServerKind]]) -> Phrase | None:
    """Why `kind` cannot be probed in an order of its own beside the kinds taken before it."""
    for other in before:
        if other.unit.priority == kind.priority:
            return Phrase("plugins.kind_priority", priority=kind.priority, other=repr(other.unit.id), there=other.file,
                          last=LAST)
    if kind.priority > LAST:
        return Phrase("plugins.kind_after_generic", priority=kind.priority, last=LAST)
    return None


SERVER_KINDS: Group[ServerKind] = Group("specview.server_kinds", ServerKind, lambda kind: kind.id, _refuse)


def server_kinds() -> tuple[ServerKind, ...]:
    """Every kind in detection order (found once: the installed kinds cannot change while specview runs)."""
    return ordered(units(SERVER_KINDS))


def ordered(kinds: tuple[ServerKind, ...]) -> tuple[ServerKind, ...]:
    """The kinds by priority (the surface has left out any two that share one)."""
    return tuple(sorted(kinds, key=lambda kind: kind.priority))


def server_ids() -> tuple[str, ...]:
    """The names `--server` accepts (besides `auto`), in detection order."""
    return tuple(kind.id for kind in server_kinds())


def engines() -> dict[str, ServerProgram]:
    """How presets run each family for real, by kind id (a preset's `[run]` key), in detection order."""
    return {kind.id: kind.engine for kind in server_kinds() if kind.engine is not None}


def kind_by_id(name: str) -> ServerKind | None:
    return next((kind for kind in server_kinds() if kind.id == name), None)


def kind_by_owner(owned_by: str) -> ServerKind | None:
    """The family a /v1/models `owned_by` names, if any."""
    return next((kind for kind in server_kinds() if owned_by.lower() in kind.owners), None)


def checked_kind(name: str | None) -> ServerKind | None:
    """The family `--server` names (None for auto); BackendError for one specview does not know."""
    if name is None or name == "auto":
        return None
    kind = kind_by_id(name)
    if kind is None:
        raise BackendError("backenderr.registry.unknown_server", ids=", ".join(server_ids()), name=repr(name))
    return kind


def detect(conn: Probe, wanted: ServerKind | None, gamma: int | None) -> tuple[ServerKind, ServerFacts]:
    """The server family (`wanted`, or probed in priority order) and what it says about itself."""
    for kind in [wanted] if wanted is not None else server_kinds():
        identified = kind.identify(conn)
        if kind is wanted or kind.recognised(identified):
            return kind, kind.facts(conn, identified, gamma)
    raise AssertionError("generic, probed last, recognises every server")
