"""Build a backend from a RunSpec: the one backend unit that selects it (group `specview.backends`).

The units are found through the plugin surface (specview/plugins/, backends/unit.py); heavy
imports happen only in the `make` of the backend asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from specview.backends.unit import BackendUnit
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from specview.plugins.surface import Group, found_units
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.kernel.backend import Backend

BACKENDS: Group[BackendUnit] = Group("specview.backends", BackendUnit, lambda unit: str(unit.id))


def backend_unit(spec: RunSpec) -> BackendUnit:
    """The unit that selects `spec`; BackendError when none does, or when two do (both named)."""
    chosen = [found for found in found_units(BACKENDS) if found.unit.selects(spec)]
    if not chosen:
        raise BackendError("backenderr.factory.unavailable", kind=spec.kind)
    if len(chosen) > 1:
        first, second = chosen[:2]
        raise BackendError("backenderr.factory.two_select", first=repr(str(first.unit.id)), there=first.file,
                           second=repr(str(second.unit.id)), where=second.file)
    return chosen[0].unit


def make_backend(spec: RunSpec) -> Backend:
    """The backend `spec` selects. Raises BackendError or PresetError with a clear message."""
    unit = backend_unit(spec)
    if spec.tree is not None and unit.no_tree is not None:
        raise BackendError("backenderr.factory.tree_local", backend=Phrase(unit.no_tree))
    if spec.gamma_auto and unit.no_auto is not None:
        raise BackendError(unit.no_auto)
    return unit.make(spec)
