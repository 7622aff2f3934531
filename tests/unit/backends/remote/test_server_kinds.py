"""The server-kind registry finds the kinds itself and orders detection by their priority.

Kinds planted in a package of their own (tmp_path on sys.path) show that the registry reads
priorities, not file order, and leaves out, with one line naming it, a kind whose order it would
have to guess.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from specview.backends.remote.registry import SERVER_KINDS, engines, ordered, server_kinds
from specview.backends.remote.server_kind import LAST, ServerKind
from specview.catalog.presets import get_preset, load_presets
from specview.features.live.real_run import real_runs
from specview.features.live.real_run_screen import real_run_text
from specview.plugins import problems
from specview.plugins.surface import package_units

KINDS_PACKAGE = "specview.backends.remote.kinds"


def kinds_of(*packages: str) -> tuple[ServerKind, ...]:
    return ordered(tuple(found.unit for found in package_units(SERVER_KINDS, *packages)))


def test_detection_goes_by_priority_and_generic_comes_last() -> None:
    kinds = server_kinds()
    # the families there were, at least: a new kind module must not need this test changed
    assert {"llama-server", "vllm", "sglang"} <= {k.id for k in kinds} and kinds[-1].id == "generic"
    assert [k.priority for k in kinds] == sorted(k.priority for k in kinds) and kinds[-1].priority == LAST
    subclasses, todo = set(), list(ServerKind.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        subclasses |= {cls} if cls.__module__.startswith("specview.") else set()
    assert subclasses == {type(k) for k in kinds[:-1]}  # every family the package defines, found


def _plant(root: Path, name: str, modules: dict[str, str]) -> str:
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module, body in modules.items():
        (package / f"{module}.py").write_text("from specview.backends.remote.server_kind import ServerKind\n" + body)
    return name


def _kind(cls: str, kind_id: str, priority: int) -> str:
    return f"class {cls}(ServerKind):\n    id = {kind_id!r}\n    priority = {priority}\n\n\n{cls.upper()} = {cls}()\n"


def test_planted_kinds_are_probed_by_their_priority_not_their_file(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    name = _plant(tmp_path, "planted_kinds", {
        "a_late": _kind("Late", "late", 25),
        "z_early": _kind("Early", "early", 5),
        "again": "from planted_kinds.z_early import EARLY\n",  # imported elsewhere: still one kind
    })
    found = kinds_of(KINDS_PACKAGE, name)
    built_in = server_kinds()
    assert [k.id for k in found] == ["early", *(k.id for k in built_in if k.priority < 25), "late",
                                     *(k.id for k in built_in if k.priority > 25)]
    assert [k.id for k in found][:4] == ["early", "llama-server", "vllm", "late"]  # 10, 20 < 25 < sglang's 30
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


@pytest.mark.parametrize(("body", "reason"), [
    (_kind("Twin", "vllm", 15), "its id 'vllm' is taken by {kinds}/vllm.py"),
    (_kind("Tie", "tie", 20), "priority 20 is taken by 'vllm' ({kinds}/vllm.py): give each its own, below 1000"),
    ("class Lazy(ServerKind):\n    id = 'lazy'\n\n\nLAZY = Lazy()\n",  # priority left at generic's
     "priority 1000 is taken by 'generic' ({kinds}/generic.py)"),
    (_kind("Never", "never", 2000), "priority 2000 is above 1000: it would be probed after generic"),
])
def test_an_order_the_registry_would_have_to_guess_is_one_line_and_the_rest_stays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], body: str,
        reason: str) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(problems, "_seen", set())
    name = _plant(tmp_path, "clash", {"bad": body})
    assert kinds_of(KINDS_PACKAGE, name) == server_kinds()  # the bad one left out, every built-in kept
    kinds = str(Path(sys.modules[KINDS_PACKAGE].__file__ or "").parent)
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and line.startswith("specview: specview.server_kinds unit ")
    assert f"({tmp_path}/clash/bad.py) is left out: " + reason.format(kinds=kinds) in line
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def test_presets_key_their_commands_by_server_kind_and_each_kind_names_its_engine() -> None:
    for preset in load_presets().values():
        assert set(preset.run) <= set(engines()), preset.id  # no shipped command under an unknown engine
    runs = real_runs(get_preset("qwen3.6-mtp"), engines())
    assert [(r.engine, r.title, r.watch) for r in runs] == [
        ("llama-server", "llama.cpp llama-server", "specview --url http://127.0.0.1:8080/v1"),  # its --port
        ("vllm", "vLLM", "specview --url http://127.0.0.1:8000/v1"),  # the engines' default ports
        ("sglang", "SGLang", "specview --url http://127.0.0.1:30000/v1"),
    ]


def test_a_user_presets_engine_no_kind_knows_is_shown_under_its_own_name_made_safe() -> None:
    hostile = {"tabby\x1b]0;PWNED\x07": "tabby --serve \x1b[2J", "vllm": "vllm serve M"}
    preset = replace(get_preset("ngram"), run=hostile)
    runs = real_runs(preset, engines())
    assert [(r.engine, r.watch) for r in runs] == [("vllm", "specview --url http://127.0.0.1:8000/v1"),
                                                   ("tabby\x1b]0;PWNED\x07", None)]  # last: no port to watch
    shown = real_run_text(preset)
    assert "\x1b" not in shown and "\x07" not in shown
    assert "tabby" in shown and "tabby --serve" in shown and shown.count("specview --url") == 1


def test_a_command_whose_method_an_engine_removed_says_which_releases_still_run_it() -> None:
    """vLLM 0.33.0 dropped the `medusa` and `mlp_speculator` methods: the Medusa preset's vLLM
    command says so, in each language; commands of methods every release has say nothing."""
    medusa = get_preset("medusa")
    (vllm,) = [r for r in real_runs(medusa, engines()) if r.engine == "vllm"]
    assert '"method": "medusa"' in vllm.command and vllm.removed_in == "0.33"
    assert "vLLM 0.33 removed this method: it runs on vLLM releases before 0.33 only" in real_run_text(medusa)
    assert "vLLM 0.33 移除了这个方法" in real_run_text(medusa, "zh")
    assert "removed this method" not in real_run_text(get_preset("ngram"))
    for preset in load_presets().values():  # every shipped command of a removed method says so
        for key, command in preset.run.items():
            if key == "vllm" and ('"medusa"' in command or '"mlp_speculator"' in command):
                assert preset.run_removed.get("vllm") == "0.33", preset.id


def test_a_removal_for_an_engine_the_preset_does_not_run_is_refused_by_file() -> None:
    import tomllib
    from importlib import resources

    from specview.catalog.presets import parse_preset
    from specview.kernel.errors import PresetError

    data = tomllib.loads((resources.files("specview") / "presets" / "medusa.toml").read_text())
    assert parse_preset(data, "medusa.toml").run_removed == {"vllm": "0.33"}
    for removed in ({"sglang": "0.6"}, {"vllm": 33}, "0.33"):
        with pytest.raises(PresetError, match=r"medusa\.toml: key 'run_removed'"):
            parse_preset({**data, "run_removed": removed}, "medusa.toml")
