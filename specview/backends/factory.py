"""Build a backend from a RunSpec; heavy imports happen only for the backend asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec

if TYPE_CHECKING:
    from specview.kernel.backend import Backend


_NO_TREE = {"sim": "the simulator (it has no draft model to branch)",
            "openai": "a remote server (it drafts and verifies its own way)",
            "replay": "a replay (it shows what was recorded)"}

# `--gamma auto` chooses γ from costs the run measures itself: v(k), c and the acceptance by position
AUTO_NEEDS = {
    "sim": "--gamma auto needs measured costs: the simulator's are the preset's assumptions, so its choice would "
           "only repeat them; the speedup note's best γ (or `specview calc`) gives that argmax, and --target T.gguf "
           "runs auto for real",
    "openai": "--gamma auto needs what only a local run measures: the verify cost of each k-token forward (v(k)) "
              "and the draft cost per token, and a server that takes γ per request; a remote server picks its own "
              "draft length (llama-server: --spec-draft-n-max); run it locally with --target T.gguf",
    "replay": "--gamma auto cannot re-choose γ in a replay: the recording holds the rounds as they ran, not "
              "the forwards a different γ would have cost",
}


def make_backend(spec: RunSpec) -> Backend:
    """The backend `spec` selects. Raises BackendError or PresetError with a clear message."""
    if spec.tree is not None and spec.kind != "llama":
        raise BackendError(f"--tree drafts a tree on the local llama.cpp loop (--target T.gguf --draft D.gguf), "
                           f"not on {_NO_TREE[spec.kind]}")
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
        from specview.backends.local.backend import make_llama_backend

        return make_llama_backend(spec)
    if spec.kind == "openai":
        from specview.backends.remote.backend import make_openai_backend

        return make_openai_backend(spec)
    if spec.kind == "replay":
        from specview.backends.replay import make_replay_backend

        return make_replay_backend(spec)
    raise BackendError(f"the {spec.kind} backend is not available in this build yet")
