"""The simulator as a backend unit: what a RunSpec runs when nothing selects another backend."""

from __future__ import annotations

from typing import TYPE_CHECKING

from specview.backends.unit import BackendUnit
from specview.kernel.backend import BackendKind
from specview.kernel.runspec import BackendOptions

if TYPE_CHECKING:
    from specview.kernel.backend import Backend
    from specview.kernel.runspec import RunSpec


def make_sim_backend(spec: RunSpec) -> Backend:
    from specview.backends.sim.backend import SimBackend
    from specview.catalog.presets import DEFAULT_PRESET, get_preset

    return SimBackend(get_preset(spec.preset or DEFAULT_PRESET), gamma=spec.gamma, temperature=spec.temperature,
                      seed=spec.seed, lang=spec.lang, prompt=spec.prompt, speed=spec.speed,
                      max_rounds=spec.max_rounds)


BACKEND = BackendUnit(BackendKind.SIM, BackendOptions, make_sim_backend,  # the base record: no options of its own
                      no_tree="backenderr.factory.no_tree_sim", no_auto="backenderr.factory.auto_sim")
