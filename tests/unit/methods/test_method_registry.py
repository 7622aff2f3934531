"""Preset methods as units of the plugin surface's group `specview.methods` (specview/methods/registry.py,
acceptance.py): each problem one line, said through specview/plugins/problems.py."""

from __future__ import annotations

import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from specview.catalog.claims import load_claims
from specview.catalog.presets import load_preset_file, load_presets
from specview.features.learn.explain.mtp import mtp_numbers
from specview.kernel.errors import PresetError
from specview.methods.registry import GROUP, METHODS, Method, methods
from specview.plugins.problems import said
from specview.plugins.surface import accepted, point_units, pyproject_points
from specview.texts.catalog import Phrase
from tests.support.method_unit import UNIT

ROOT = Path(__file__).resolve().parents[3]


def _plugin(root: Path, name: str, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> EntryPoint:
    """A package `name` under `root` holding one unit's files, importable, and the entry point naming it."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text('"""a method plugin"""\n', encoding="utf-8")
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.delitem(sys.modules, name, raising=False)  # another test's package of the same name
    return EntryPoint(name.replace("_", "-"), name, GROUP)


def _read(points: list[EntryPoint]) -> tuple[dict[str, Method], tuple[Phrase, ...]]:
    """The methods the built-ins and then `points` give, as the plugin surface reads a group, and what it said."""
    found = (unit for point in [*pyproject_points(GROUP), *points] for unit in point_units(METHODS, point))
    return {item.unit.id: item.unit for item in accepted(METHODS, found)}, said()


def test_the_built_in_methods_come_through_the_plugin_surface() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"][GROUP] == {"builtin": "specview.methods"}
    found, problems = _read([])
    units = sorted(p.name for p in (ROOT / "specview" / "methods").iterdir() if (p / "method.toml").is_file())
    assert list(found) == units == list(methods()) and problems == ()


def test_every_shipped_preset_names_its_school_and_every_claim_has_one_owner() -> None:
    schools = {row["method"]: row["school"] for row in mtp_numbers()["presets"]}
    assert "other" not in schools.values()  # there is no fallback school: each unit declares one
    assert schools["suffix"] == "lookup" and schools["dflash"] == "block" and schools["eagle"] == "feature"
    owners = [c.id for m in methods().values() for c in m.claims]
    assert len(owners) == len(set(owners)) and set(owners) <= set(load_claims())
    for method in methods().values():
        assert method.school_in("zh") != method.school_in("en") and method.acceptance_source[1].startswith("https://")


def test_a_plugin_unit_adds_a_method_its_claims_and_its_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found, problems = _read([_plugin(tmp_path, "planted_lookup", UNIT, monkeypatch)])
    assert problems == ()
    method = found["planted-lookup"]
    assert list(found)[:-1] == list(methods())  # built-ins first, then the plugin
    assert method.school_in("zh") == "查找" and method.model.allows == ("depth",)
    (claim,) = method.claims
    assert claim.describe("zh") == "测试论断" and claim.describe("en") == "a test claim"


@pytest.mark.parametrize(("files", "says"), [
    ({**UNIT, "method.toml": UNIT["method.toml"].replace('id = "planted-lookup"', 'id = "ngram"')}, "is taken by"),
    ({**UNIT, "method.toml": UNIT["method.toml"].replace("variable-depth", "telepathy")}, "telepathy"),
    ({**UNIT, "method.toml": UNIT["method.toml"].replace('school = "lookup"\n', "")}, "'school'"),
    ({**UNIT, "method.toml": UNIT["method.toml"].replace("mean_length", "vibes")}, "vibes"),
    ({name: text.replace("planted-lookup-length", "specbench-pld-length") for name, text in UNIT.items()},
     "claim specbench-pld-length is taken by"),
    ({**UNIT, "method.toml": "id = [\n"}, "cannot be read"),
    ({k: v for k, v in UNIT.items() if k != "texts.en.toml"}, "texts.en.toml"),
])
def test_a_bad_unit_is_one_line_naming_it_and_the_rest_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              files: dict[str, str], says: str) -> None:
    found, problems = _read([_plugin(tmp_path, "planted_lookup", files, monkeypatch)])
    assert list(found) == list(methods())
    (line,) = problems
    assert says in line.render("en") and "单元" in line.render("zh") and line.render("zh") != line.render("en")
    for lang in ("en", "zh"):
        assert str(tmp_path / "planted_lookup") in line.render(lang), line.render(lang)


def test_a_module_that_does_not_import_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = _plugin(tmp_path, "broken_method", {"method.toml": "", "__init__.py": "raise RuntimeError('boom')\n"},
                     monkeypatch)
    found, problems = _read([broken, EntryPoint("gone", "no_such_module_here", GROUP)])
    assert list(found) == list(methods())
    lines = [p.render("en") for p in problems]
    assert len(lines) == 2 and "broken-method = broken_method" in lines[0] and "boom" in lines[0]
    assert "no_such_module_here" in lines[1]


@pytest.mark.parametrize("drop", ["texts.zh.toml", "claim"])
def test_texts_lacking_a_language_are_one_line_and_english_is_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    drop: str) -> None:
    files = dict(UNIT)
    if drop == "claim":
        files["texts.zh.toml"] = 'school = "查找"\n'
    else:
        del files["texts.zh.toml"]
    found, problems = _read([_plugin(tmp_path, "planted_lookup", files, monkeypatch)])
    (line,) = problems
    file = str(tmp_path / "planted_lookup" / "texts.zh.toml")
    assert "planted-lookup" in line.render("zh") and file in line.render("en")
    (claim,) = found["planted-lookup"].claims
    assert claim.describe("zh") == "a test claim"


def _preset(tmp_path: Path, shipped: str, **changes: str) -> Path:
    text = (ROOT / "specview" / "presets" / shipped).read_text(encoding="utf-8")
    for old, new in changes.items():
        text = text.replace(old, new)
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_preset_naming_an_unknown_method_is_skipped_naming_its_file(tmp_path: Path) -> None:
    _preset(tmp_path, "glm-5.2-mtp.toml", **{'"mtp-sequential"': '"planted-lookup"', '"glm-5.2-mtp"': '"mine"'})
    problems: list = []
    presets = load_presets(tmp_path, problems)
    assert "mine" not in presets and "glm-5.2-mtp" in presets
    (line,) = problems
    assert said() == (line,)  # said by the plugin surface, once however often presets are read
    load_presets(tmp_path, [])
    assert len(said()) == 1
    for lang in ("en", "zh"):
        assert str(tmp_path / "mine.toml") in line.render(lang) and "planted-lookup" in line.render(lang)


@pytest.mark.parametrize(("shipped", "change", "part"), [
    ("ngram.toml", ("method = \"ngram\"", "method = \"draft-model\""), "mixture"),  # a mixture under a chain model
    ("suffix.toml", ("method = \"suffix\"", "method = \"eagle\""), "depth"),  # a varying depth under a tree model
    ("eagle3-tree.toml", ("method = \"eagle\"", "method = \"mtp-sequential\""), "tree"),  # a tree under a chain
])
def test_a_preset_may_have_only_the_parts_its_methods_model_has(tmp_path: Path, shipped: str,
                                                                 change: tuple[str, str], part: str) -> None:
    path = _preset(tmp_path, shipped, **{change[0]: change[1]})
    with pytest.raises(PresetError) as caught:
        load_preset_file(path)
    assert caught.value.phrase.key == "methoderr.preset_model" and str(path) in str(caught.value)
    assert caught.value.phrase.fields["feature"] == part
    assert load_preset_file(_preset(tmp_path, "glm-5.2-mtp.toml", **{"mtp-sequential": "ngram"})).method == "ngram"


def test_a_bad_id_is_one_line_without_its_control_characters(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    bad = {**UNIT, "method.toml": UNIT["method.toml"].replace('"planted-lookup"', '"Planted Lookup\\u001b[2J"', 1)}
    _found, problems = _read([_plugin(tmp_path, "planted_lookup", bad, monkeypatch)])
    (line,) = problems
    assert "\x1b" not in line.render("en") and "'id'" in line.render("en")
