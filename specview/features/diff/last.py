"""The last local `specview diff` verdict, kept for Learn 6 to explain with the user's own numbers.

A small JSON file in the user's state folder ($SPECVIEW_DIFF_LAST overrides it), replaced by
each local diff (never through a link, mode 0600). Read back as untrusted input: bounded,
every field checked, and any problem means "no verdict" (Learn then gives the general text).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from specview.boundary import bounds
from specview.boundary.jsonio import dumps, loads
from specview.boundary.safe_files import open_regular, write_new
from specview.boundary.text import sanitize
from specview.features.diff.model import DEFECT, EXACT, NUMERICS, DiffResult

MAX_BYTES = 4096
MAX_INDEX = 10**7


@dataclass(frozen=True, slots=True)
class LastDiff:
    """What Learn shows of the last verdict."""

    model: str
    kind: str  # exact | numerics | defect
    tokens: int  # tokens compared (exact) or the divergence's index (numerics, defect)
    batch_width: int | None = None
    position: int | None = None
    logit_shift: float | None = None


def default_path() -> Path:
    env = os.environ.get("SPECVIEW_DIFF_LAST")
    if env:
        return Path(env)
    import platformdirs

    return platformdirs.user_state_path("specview") / "last-diff.json"


def save(result: DiffResult, model: str, path: Path | None = None) -> None:
    """Keep `result` when it has a cause (a local run); a folder that cannot be written keeps nothing."""
    cause = result.cause
    if cause is None:
        return
    d = result.divergence
    data = {"model": model, "kind": cause.kind, "tokens": result.compared if d is None else d.index,
            "batch_width": cause.batch_width, "position": cause.position, "logit_shift": cause.logit_shift}
    path = path or default_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_new(path, dumps(data), replace=True)
    except OSError:
        pass


def load(path: Path | None = None) -> LastDiff | None:
    """The last verdict, or None (none kept, unreadable or not one specview wrote)."""
    try:
        with open_regular(path or default_path()) as fh:
            raw = fh.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            return None
        data = bounds.mapping(loads(raw), "last diff")
        kind = bounds.string(data.get("kind"), "kind")
        if kind not in (EXACT, NUMERICS, DEFECT):
            return None
        return LastDiff(
            model=sanitize(bounds.string(data.get("model"), "model"), 80, one_line=True),
            kind=kind,
            tokens=bounds.integer(data.get("tokens"), "tokens", 0, MAX_INDEX),
            batch_width=bounds.optional_integer(data.get("batch_width"), "batch_width", 1, bounds.MAX_ROUND_TOKENS),
            position=bounds.optional_integer(data.get("position"), "position", 0, MAX_INDEX),
            logit_shift=bounds.optional_real(data.get("logit_shift"), "logit_shift", -1e6, 1e6),
        )
    except (OSError, ValueError):  # Refused is an OSError, JsonError and bounds.Invalid ValueErrors
        return None
