"""Every server family specview knows, found rather than listed.

The kinds are the ServerKind instances that the modules of the server-kinds package define, and
those installed packages add through the entry-point group `specview.server_kinds` (an entry
point names an instance: `tinyengine = "specview_tinyengine:KIND"`). Detection probes them by
`priority`, lowest first; `generic`, which recognises every server, has the highest (LAST) and
comes last. Two kinds with one id or one priority are refused, both named: detection order is
never left to the order files happen to be found in.

The kinds live in `backends/remote/kinds/`, one module each: adding an engine is one module there
(and its texts). The registry is read where the kinds are needed (a remote run, `watch`) or where
their names are listed (`--server`'s value and --help), never by a simulator run.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterable
from functools import cache
from importlib import import_module
from importlib.metadata import entry_points

from specview.backends.remote.server_kind import LAST, Probe, ServerFacts, ServerKind
from specview.features.live.real_run import ServerProgram
from specview.kernel.errors import BackendError, SpecviewError, describe_error
from specview.texts.catalog import Phrase

KINDS_PACKAGE = "specview.backends.remote.kinds"
PLUGIN_GROUP = "specview.server_kinds"


@cache
def server_kinds() -> tuple[ServerKind, ...]:
    """Every kind in detection order (found once: the installed kinds cannot change while specview runs)."""
    return ordered([*package_kinds(KINDS_PACKAGE), *plugin_kinds(PLUGIN_GROUP)])


def package_kinds(package: str) -> list[tuple[ServerKind, str | Phrase]]:
    """(kind, module) for every ServerKind instance at the top level of a module of `package`."""
    found: list[tuple[ServerKind, str | Phrase]] = []
    for info in pkgutil.iter_modules(import_module(package).__path__, f"{package}."):
        module = import_module(info.name)
        found += [(value, info.name) for value in vars(module).values() if isinstance(value, ServerKind)]
    return found


def plugin_kinds(group: str) -> list[tuple[ServerKind, str | Phrase]]:
    """(kind, entry point) for every entry point of `group`. One that fails to load or names no
    ServerKind instance is a BackendError naming it: a broken plugin is never skipped unseen."""
    found: list[tuple[ServerKind, str | Phrase]] = []
    for point in entry_points(group=group):
        where = Phrase("backenderr.registry.plugin", name=point.name, value=point.value)
        try:
            value = point.load()
        except Exception as exc:  # noqa: BLE001 - the plugin's own failure, named with its type
            error = exc if isinstance(exc, SpecviewError) else describe_error(exc)  # a library's: with its type
            raise BackendError("backenderr.registry.load_failed", where=where, error=error) from None
        if not isinstance(value, ServerKind):
            raise BackendError("backenderr.registry.not_a_kind", where=where, type=type(value).__name__)
        found.append((value, where))
    return found


def ordered(found: Iterable[tuple[ServerKind, str | Phrase]]) -> tuple[ServerKind, ...]:
    """The kinds (each once, however many modules import it) by priority; BackendError for two that
    share an id or a priority, or one that would be probed after `generic` and so never."""
    kinds: list[tuple[ServerKind, str | Phrase]] = []
    for kind, where in found:
        if any(kind is seen for seen, _ in kinds):
            continue
        for other, there in kinds:
            if other.id == kind.id:
                raise BackendError("backenderr.registry.same_id", id=repr(kind.id), there=there, where=where)
            if other.priority == kind.priority:
                raise BackendError("backenderr.registry.same_priority", other=repr(other.id), there=there,
                                   id=repr(kind.id), where=where, priority=kind.priority, last=LAST)
        if kind.priority > LAST:
            raise BackendError("backenderr.registry.after_generic", id=repr(kind.id), where=where,
                               priority=kind.priority, last=LAST)
        kinds.append((kind, where))
    return tuple(kind for kind, _ in sorted(kinds, key=lambda item: item[0].priority))


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
