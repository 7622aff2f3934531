"""Backends are units of the group `specview.backends` (backends/unit.py), each with its own options record:
a RunSpec runs on the unit its record names, a name no unit has is one clear error, and a unit whose record
is another backend's is left out with one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.backends.factory import BACKENDS, backend_named, backend_unit
from specview.backends.local.run_options import LlamaRunOptions, llama_options
from specview.backends.remote.options import RemoteOptions, remote_options
from specview.backends.replay import ReplayOptions
from specview.kernel.backend import BackendKind
from specview.kernel.errors import BackendError
from specview.kernel.runspec import BackendOptions, RunSpec
from specview.plugins import surface
from specview.plugins.problems import said
from specview.plugins.surface import units
from tests.support.planted_dist import plant_distribution

ELSEWHERE = '''from specview.backends.unit import BackendUnit
from specview.backends.local.run_options import LlamaRunOptions

BACKEND = BackendUnit("greedy-sim", LlamaRunOptions, lambda spec: None)
'''


def test_each_built_in_backend_runs_the_specs_its_options_record_names() -> None:
    assert sorted(unit.id for unit in units(BACKENDS)) == sorted(BackendKind)
    runs = {BackendKind.SIM: RunSpec(), BackendKind.LLAMA: RunSpec(options=LlamaRunOptions(target="t.gguf")),
            BackendKind.REMOTE: RunSpec(options=RemoteOptions(url="http://127.0.0.1:1/v1")),
            BackendKind.REPLAY: RunSpec(options=ReplayOptions(recording="r.jsonl"))}
    assert {kind: backend_unit(spec).id for kind, spec in runs.items()} == {kind: kind for kind in runs}
    assert all(backend_named(kind).options is type(spec.options) for kind, spec in runs.items())
    assert all(spec.kind is kind for kind, spec in runs.items())  # specview's own: the BackendKind member


def test_the_records_keep_to_their_backend() -> None:
    local = RunSpec(seed=3, options=LlamaRunOptions(target="t.gguf", threads=2))
    assert llama_options(local).threads == 2 and remote_options(local) == RemoteOptions()  # another's: defaults
    assert llama_options(RunSpec()) == LlamaRunOptions() and type(RunSpec().options) is BackendOptions
    with pytest.raises(TypeError):
        RunSpec(target="t.gguf")  # type: ignore[call-arg]  # a local option is no longer everyone's
    header = local.header_fields()
    assert header["settings"]["threads"] == 2 and "url" not in header["settings"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_name_no_unit_has_lists_the_backends(lang: str) -> None:
    with pytest.raises(BackendError) as caught:
        backend_named("nope\x1b[2J")
    said_in = caught.value.phrase.render(lang)
    assert "nope" in said_in and "\x1b" not in said_in and all(kind in said_in for kind in BackendKind)
    assert ("后端" in said_in) == (lang == "zh")


def test_a_plugin_unit_whose_record_is_another_backends_is_one_line_and_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = plant_distribution(tmp_path, "specview-greedy", {"specview.backends": {"greedy": "specview_greedy:BACKEND"}},
                              {"specview_greedy/__init__.py": ELSEWHERE})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(surface, "_LOADED", {})
    assert sorted(unit.id for unit in units(BACKENDS)) == sorted(BackendKind)
    (line,) = said()
    assert line.render("en") == (f"specview.backends unit 'greedy-sim' ({site}/specview_greedy/__init__.py) is left "
                                 f"out: its options record LlamaRunOptions is for backend 'llama', not for its id")
    assert backend_unit(RunSpec(options=LlamaRunOptions(target="t.gguf"))).id == BackendKind.LLAMA
