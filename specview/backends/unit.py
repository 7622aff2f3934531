"""What a backend declares to the plugin surface (group `specview.backends`, specview/plugins/).

A backend is one unit: its id (what `BackendInfo.backend` and a recording's header call it), which
RunSpecs select it, how to make it (heavy imports inside `make`: loading the group imports every
backend's unit module, so those stay light), and what it cannot do, each as the catalog id of the
reason. Exactly one unit must select a spec: the factory names both when two do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from specview.kernel.backend import Backend
    from specview.kernel.runspec import RunSpec


@dataclass(frozen=True, slots=True)
class BackendUnit:
    """One backend: `selects` the RunSpecs it runs, `make` builds it for one."""

    id: str
    selects: Callable[[RunSpec], bool]
    make: Callable[[RunSpec], Backend]
    # catalog ids: what this backend is, as "--tree … not on {backend}" names it (None: it drafts trees),
    # and why it cannot choose γ itself (None: `--gamma auto` works)
    no_tree: str | None = None
    no_auto: str | None = None
