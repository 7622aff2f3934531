"""Backends are units of the group `specview.backends` (backends/unit.py): the factory makes the one
unit that selects a run; a plugin unit that selects a run a built-in selects too is named with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.backends.factory import BACKENDS, backend_unit
from specview.kernel.backend import BackendKind
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from specview.plugins import surface
from specview.plugins.surface import units
from tests.support.planted_dist import plant_distribution

GREEDY = '''from specview.backends.unit import BackendUnit
from specview.kernel.backend import BackendKind

BACKEND = BackendUnit("greedy-sim", lambda spec: spec.kind is BackendKind.SIM, lambda spec: None)
'''


def test_each_built_in_backend_is_the_one_unit_its_runs_select() -> None:
    assert sorted(unit.id for unit in units(BACKENDS)) == sorted(BackendKind)
    runs = {BackendKind.SIM: RunSpec(), BackendKind.LLAMA: RunSpec(target="t.gguf"),
            BackendKind.REMOTE: RunSpec(url="http://127.0.0.1:1/v1"), BackendKind.REPLAY: RunSpec(replay="r.jsonl")}
    assert {kind: backend_unit(spec).id for kind, spec in runs.items()} == {kind: kind for kind in runs}


def test_a_plugin_backend_that_selects_a_built_ins_runs_is_named_with_it(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    site = plant_distribution(tmp_path, "specview-greedy", {"specview.backends": {"greedy": "specview_greedy:BACKEND"}},
                              {"specview_greedy/__init__.py": GREEDY})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(surface, "_LOADED", {})
    with pytest.raises(BackendError) as caught:
        backend_unit(RunSpec())
    said = str(caught.value)
    assert said.startswith("backends 'sim' (") and "specview/backends/sim/unit.py) and 'greedy-sim' (" in said
    assert said.endswith(f"{site}/specview_greedy/__init__.py) both select this run: a run is for one backend")
    assert backend_unit(RunSpec(url="http://127.0.0.1:1/v1")).id == BackendKind.REMOTE  # the others unchanged
