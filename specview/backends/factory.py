"""Build a backend from a RunSpec; heavy imports happen only for the backend asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.kernel.backend import Backend


_NO_TREE = {"sim": "backenderr.factory.no_tree_sim", "openai": "backenderr.factory.no_tree_openai",
            "replay": "backenderr.factory.no_tree_replay"}

# `--gamma auto` chooses γ from costs the run measures itself: v(k), c and the acceptance by position.
# Catalog ids (texts/errors_backends.*.toml): `specview record` raises the replay one too.
AUTO_NEEDS = {"sim": "backenderr.factory.auto_sim", "openai": "backenderr.factory.auto_openai",
              "replay": "backenderr.factory.auto_replay"}


def make_backend(spec: RunSpec) -> Backend:
    """The backend `spec` selects. Raises BackendError or PresetError with a clear message."""
    if spec.tree is not None and spec.kind != "llama":
        raise BackendError("backenderr.factory.tree_local", backend=Phrase(_NO_TREE[spec.kind]))
    if spec.gamma_auto and spec.kind != "llama":
        raise BackendError(AUTO_NEEDS[spec.kind])
    if spec.kind == "sim":
        from specview.backends.sim.backend import SimBackend
        from specview.catalog.presets import DEFAULT_PRESET, get_preset

        return SimBackend(
            get_preset(spec.preset or DEFAULT_PRESET),
            gamma=spec.gamma,
            temperature=spec.temperature,
            seed=spec.seed,
            lang=spec.lang,
            prompt=spec.prompt,
            speed=spec.speed,
            max_rounds=spec.max_rounds,
        )
    if spec.kind == "llama":
        import os

        from specview.backends.local.engine_host import ENGINE_CHILD_ENV

        if not os.environ.get(ENGINE_CHILD_ENV):  # llama.cpp runs in a process of its own (engine_process.py)
            from specview.backends.local.engine_process import EngineProcess

            return EngineProcess(spec)
        from specview.backends.local.backend import make_llama_backend

        return make_llama_backend(spec)
    if spec.kind == "openai":
        from specview.backends.remote.backend import make_openai_backend

        return make_openai_backend(spec)
    if spec.kind == "replay":
        from specview.backends.replay import make_replay_backend

        return make_replay_backend(spec)
    raise BackendError("backenderr.factory.unavailable", kind=spec.kind)
