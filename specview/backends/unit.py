"""What a backend declares to the plugin surface (group `specview.backends`, specview/plugins/).

A backend is one unit: its id (what `BackendInfo.backend` and a recording's header call it, and what
`--backend` names), its options record (a kernel.runspec.BackendOptions subclass whose `backend` is
this id: the options only it takes, each declaring its command-line option), how to make it (heavy
imports inside `make`: loading the group imports every backend's unit module, so those stay light),
and what it cannot do, each as the catalog id of the reason. A RunSpec is run by the unit its options
record names (backends/factory.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from specview.kernel.runspec import BackendOptions

if TYPE_CHECKING:
    from specview.kernel.backend import Backend
    from specview.kernel.runspec import RunSpec


@dataclass(frozen=True, slots=True)
class BackendUnit:
    """One backend: its `options` record, and `make`, which builds it for a RunSpec holding one."""

    id: str
    options: type[BackendOptions]
    make: Callable[[RunSpec], Backend]
    # catalog ids: what this backend is, as "--tree … not on {backend}" names it (None: it drafts trees),
    # and why it cannot choose γ itself (None: `--gamma auto` works)
    no_tree: str | None = None
    no_auto: str | None = None
