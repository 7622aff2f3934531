"""Build a backend from a RunSpec: the backend unit its options record names (group `specview.backends`).

The units are found through the plugin surface (specview/plugins/, backends/unit.py); heavy
imports happen only in the `make` of the backend asked for. A unit whose options record names
another backend is left out, with one line (plugins/problems.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from specview.backends.unit import BackendUnit
from specview.boundary.text import shown
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from specview.plugins.surface import Found, Group, units
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.kernel.backend import Backend


def _options_elsewhere(unit: BackendUnit, before: list[Found[BackendUnit]]) -> Phrase | None:
    """A unit whose options record is another backend's: it could never be chosen."""
    if unit.options.backend == unit.id:
        return None
    return Phrase("plugins.backend_options", record=unit.options.__name__, other=str(unit.options.backend))


BACKENDS: Group[BackendUnit] = Group("specview.backends", BackendUnit, lambda unit: str(unit.id),
                                     refuse=_options_elsewhere)


def backend_named(name: str) -> BackendUnit:
    """The unit with id `name`; BackendError naming every backend when there is none."""
    found = {str(unit.id): unit for unit in units(BACKENDS)}
    if name not in found:
        raise BackendError("backenderr.factory.unknown", name=shown(name), known=", ".join(sorted(found)))
    return found[name]


def backend_unit(spec: RunSpec) -> BackendUnit:
    """The unit that runs `spec`: the one its options record names."""
    return backend_named(str(spec.kind))


def make_backend(spec: RunSpec) -> Backend:
    """The backend `spec` selects. Raises BackendError or PresetError with a clear message."""
    unit = backend_unit(spec)
    if spec.tree is not None and unit.no_tree is not None:
        raise BackendError("backenderr.factory.tree_local", backend=Phrase(unit.no_tree))
    if spec.gamma_auto and unit.no_auto is not None:
        raise BackendError(unit.no_auto)
    return unit.make(spec)
