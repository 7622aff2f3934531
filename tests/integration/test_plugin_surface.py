"""The plugin surface end to end, with installed distributions (a dist-info and its modules in a folder
on the child's PYTHONPATH, as pip leaves them): a Learn screen and a gauge a package registers, with their
own zh and en texts, show up like specview's own; a module that fails to import, a unit with an id another
took, a unit whose texts lack a language: each is one line naming the unit and its file, and the rest of
specview starts and works. An install whose metadata predates the groups, or one under the distribution's
former name, still loads every built-in, each once."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from rich.cells import cell_len

from specview.backends.remote.registry import server_ids
from specview.distribution import NAME
from specview.features.learn.registry import lessons
from tests.support.limited_run import base_env
from tests.support.planted_dist import plant_distribution

ROOT = Path(__file__).resolve().parents[2]

TWELVE = '''"""A Learn screen from a package: its Lesson, its checks, its texts beside it."""
from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import LessonChecks
from specview.features.learn.registry import Lesson


class TwelveScreen(LearnScreen):
    pass


LESSON = Lesson(NUMBER, "SLUG", TwelveScreen, lambda lang: {"twelve": 12},
                checks=LessonChecks(lambda s, n: [("twelve", n["twelve"], 12)], lambda s, n: []))
'''
LESSON_TEXTS = {"en": '[learn.SLUG]\ntitle = "Twelve"\nidea = "Twelve, from a package."\n',
                "zh": '[learn.SLUG]\ntitle = "十二"\nidea = "十二，来自一个包。"\n'}

DRAFTED = '''"""A gauge from a package: drafted tokens per round, shown by `bench` right after τ."""
from specview.kernel.gauges import BENCH, GaugeSpec

GAUGE = GaugeSpec("planted_drafted", lambda r: r.snap.drafted / r.snap.rounds if r.snap.rounds else None, ".2f",
                  frozenset({BENCH}), after="tau")
'''
GAUGE_TEXTS = {"en": '[gauge.planted_drafted]\nlabel = "drafted per round"\nshort = "planted/rd"\n'
                     'help = "draft tokens proposed per round"\n',
               "zh": '[gauge.planted_drafted]\nlabel = "每轮草稿数"\nshort = "植入/轮"\n'
                     'help = "每轮提出的草稿 token 数"\n'}

DUPLICATE_KIND = '''from specview.backends.remote.server_kind import ServerKind


class Twin(ServerKind):
    id = "vllm"
    priority = 15


KIND = Twin()
'''


GREEDY = '''"""A backend from a package: the simulator's rounds under its own name, with an options record."""
from dataclasses import dataclass, field, replace
from typing import ClassVar

from specview.backends.unit import BackendUnit
from specview.kernel.runspec import BackendOptions, declare


@dataclass(frozen=True, slots=True)
class GreedyOptions(BackendOptions):
    backend: ClassVar[str] = "planted-greedy"
    gamma: int = field(default=2, metadata=declare("settings.greedy_gamma", "--planted-greedy-gamma"))
    width: int = field(default=1, metadata=declare(option="--width"))  # not its own name: left out


class Greedy:
    def __init__(self, spec):
        from specview.backends.sim.backend import SimBackend
        from specview.catalog.presets import DEFAULT_PRESET, get_preset

        self._sim = SimBackend(get_preset(DEFAULT_PRESET), gamma=spec.options.gamma, temperature=0.0, seed=spec.seed,
                               speed=0.0, max_rounds=spec.max_rounds)
        self.info = replace(self._sim.info, backend="planted-greedy", label="planted greedy")

    def rounds(self, stop):
        return self._sim.rounds(stop)

    def close(self):
        self._sim.close()


BACKEND = BackendUnit("planted-greedy", GreedyOptions, Greedy)
'''


def specview(site: Path, home: Path, *args: str, program: str | None = None) -> subprocess.CompletedProcess[str]:
    env = base_env(home, {"PYTHONPATH": f"{site}:{ROOT}", "NO_COLOR": "1"})
    command = ["-c", program] if program is not None else ["-m", "specview", *args]
    return subprocess.run([sys.executable, *command], capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL, cwd=home)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def lesson_plugin(site: Path, module: str, number: int, slug: str, langs: tuple[str, ...] = ("en", "zh")) -> Path:
    texts = {f"{module}/{module}.{lang}.toml": LESSON_TEXTS[lang].replace("SLUG", slug) for lang in langs}
    source = TWELVE.replace("NUMBER", str(number)).replace("SLUG", slug)
    return plant_distribution(site, module.replace("_", "-"), {"specview.lessons": {slug: module}},
                              {f"{module}/__init__.py": source, **texts})


def test_a_packages_learn_screen_and_gauge_join_specviews_own_with_their_texts(tmp_path: Path, home: Path) -> None:
    site = lesson_plugin(tmp_path / "site", "specview_twelve", len(lessons()) + 1, "twelve")
    plant_distribution(site, "specview-drafted", {"specview.gauges": {"drafted": "specview_drafted.gauge:GAUGE"}},
                       {"specview_drafted/__init__.py": "", "specview_drafted/gauge.py": DRAFTED,
                        **{f"specview_drafted/gauge.{lang}.toml": words for lang, words in GAUGE_TEXTS.items()}})
    number = len(lessons()) + 1
    shown = specview(site, home, "learn", str(number), "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout) == {"twelve": 12} and shown.stderr == ""
    titled = specview(site, home, program="from specview.features.learn.registry import lessons\n"
                                          "from specview.texts.catalog import text\n"
                                          "print(text(lessons()[-1].title_key, 'zh'), text(lessons()[-1].idea_key))")
    assert titled.stdout == "十二 Twelve, from a package.\n", titled.stderr
    for lang, short in (("en", "planted/rd"), ("zh", "植入/轮")):
        table = specview(site, home, "bench", "--rounds", "20", "--table", "--lang", lang)
        assert table.returncode == 0 and table.stderr == "", table.stderr
        header, row = table.stdout.splitlines()[:2]
        assert header.split()[header.split().index("τ") + 1] == short  # right after τ, where its `after` puts it
        column_end = cell_len(header[: header.index(short) + len(short)])  # right-aligned columns; an ASCII row
        assert row[:column_end].split()[-1] == "3.00"  # the preset's γ: every round drafts 3


@pytest.mark.parametrize(("points", "files", "line"), [
    ({"specview.server_kinds": {"broken": "specview_broken:KIND"}},
     {"specview_broken/__init__.py": 'raise ImportError("specview_broken needs tinylib, which is not installed")\n'},
     "specview: plugin specview.server_kinds broken = specview_broken:KIND ({site}/specview_broken/__init__.py) "
     "failed to load and is left out: ImportError: specview_broken needs tinylib, which is not installed"),
    ({"specview.server_kinds": {"twin": "specview_twin:KIND"}}, {"specview_twin/__init__.py": DUPLICATE_KIND},
     "specview: specview.server_kinds unit 'vllm' ({site}/specview_twin/__init__.py) is left out: its id 'vllm' is "
     "taken by {root}/specview/backends/remote/kinds/vllm.py"),
])
def test_a_bad_server_kind_plugin_is_one_line_and_specview_still_starts(
        tmp_path: Path, home: Path, points: dict[str, dict[str, str]], files: dict[str, str], line: str) -> None:
    site = plant_distribution(tmp_path / "site", "specview-bad", points, files)
    helped = specview(site, home, "--help")
    assert helped.returncode == 0 and "usage: specview" in helped.stdout
    assert helped.stderr.splitlines() == [line.format(site=site, root=ROOT)]  # once, however often kinds are read
    assert ", ".join(["auto", *server_ids()]) in " ".join(helped.stdout.split())  # every built-in kind kept
    simulated = specview(site, home, "bench", "--rounds", "20", "--json")
    assert simulated.returncode == 0 and json.loads(simulated.stdout)["backend"] == "sim"


def test_a_learn_screen_whose_texts_lack_a_language_is_one_line_and_left_out(tmp_path: Path, home: Path) -> None:
    site = lesson_plugin(tmp_path / "site", "specview_half", len(lessons()) + 1, "half", langs=("en",))
    out = specview(site, home, "learn", "1", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)
    module = site / "specview_half"
    assert out.stderr.splitlines() == [f"specview: specview.lessons unit 'half' ({module}/__init__.py) is left out: "
                                       f"its texts lack the zh file {module}/specview_half.zh.toml"]
    said_in_zh = specview(site, home, "learn", "1", "--json", "--lang", "zh")
    assert said_in_zh.stderr.splitlines() == [f"specview: specview.lessons 单元 'half'（{module}/__init__.py）未加载："
                                              f"它的文本缺少 zh 文件 {module}/specview_half.zh.toml"]
    beyond = specview(site, home, "learn", str(len(lessons()) + 1), "--json")
    assert beyond.returncode == 2 and "there is no Learn screen" in beyond.stderr  # not half a screen


def test_an_install_whose_metadata_predates_the_groups_still_loads_every_built_in(tmp_path: Path,
                                                                                   home: Path) -> None:
    # a specview dist-info ahead of the real one on the path, as an editable install made before the groups left it
    site = plant_distribution(tmp_path / "site", NAME, {"console_scripts": {"specview": "specview.cli:main"}},
                              version="0.0.1")
    out = specview(site, home, program=BUILT_INS + f"import importlib.metadata as m\nprint(m.version({NAME!r}))\n")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    found, version = out.stdout.splitlines()
    assert version == "0.0.1"  # the planted metadata is the one read
    assert found == built_ins_here()
    assert "generic" in found and "'replay'" in found


def test_an_install_under_the_former_distribution_name_loads_each_built_in_once(tmp_path: Path,
                                                                                 home: Path) -> None:
    """A venv that had `specview` (the distribution's name before `specview-tui`) installed and kept it
    declares every built-in a second time: each is still one unit, and nothing is reported."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    site = plant_distribution(tmp_path / "site", "specview", declared, version="0.0.1")
    out = specview(site, home, program=BUILT_INS)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert out.stdout.strip() == built_ins_here()


BUILT_INS = ("from specview.backends.remote.registry import server_ids\n"
             "from specview.backends.factory import BACKENDS\nfrom specview.plugins.surface import units\n"
             "from specview.features.learn.registry import lessons\nfrom specview.kernel.gauges import GAUGES\n"
             "print((server_ids(), sorted(u.id for u in units(BACKENDS)), len(lessons()), len(GAUGES)))\n")


def built_ins_here() -> str:
    """What BUILT_INS prints in this process (its own install)."""
    from specview.backends.factory import BACKENDS
    from specview.kernel.gauges import GAUGES
    from specview.plugins.surface import units

    return str((server_ids(), sorted(u.id for u in units(BACKENDS)), len(lessons()), len(GAUGES)))


def test_a_packages_backend_is_chosen_by_name_and_runs_headless(tmp_path: Path, home: Path) -> None:
    site = plant_distribution(tmp_path / "site", "specview-greedy",
                              {"specview.backends": {"greedy": "specview_greedy:BACKEND"}},
                              {"specview_greedy/__init__.py": GREEDY})
    out = specview(site, home, "bench", "--backend", "planted-greedy", "--rounds", "30", "--json")
    refused = "backend 'planted-greedy': its option '--width' does not start with --<its id>- and is left out"
    assert out.returncode == 0 and out.stderr.startswith(f"specview: {refused}"), out.stderr
    run = json.loads(out.stdout)
    assert (run["backend"], run["rounds"], run["gamma"], run["temperature"]) == ("planted-greedy", 30, 2, 0.0)
    own = specview(site, home, "bench", "--backend", "planted-greedy", "--planted-greedy-gamma", "4", "--json")
    assert own.returncode == 0 and json.loads(own.stdout)["gamma"] == 4, own.stderr  # its own option, its own record
    helped = specview(site, home, "--lang", "zh", "bench", "--help")
    assert "planted-greedy 后端（插件：--backend planted-greedy）" in helped.stdout
    assert "--planted-greedy-gamma" in helped.stdout and "--width" not in helped.stdout
    simulated = specview(site, home, "bench", "--rounds", "30", "--json")  # nothing names it: the simulator
    assert simulated.returncode == 0 and json.loads(simulated.stdout)["backend"] == "sim"
    for lang, words in (("en", "there is no backend 'planted-greedie': the backends are "), ("zh", "没有名为")):
        wrong = specview(site, home, "--lang", lang, "bench", "--backend", "planted-greedie", "--json")
        refusal, line = wrong.stderr.splitlines()  # the option left out, said in the language; then the error
        assert "--width" in refusal and ("未加载" in refusal) == (lang == "zh")
        assert wrong.returncode == 2 and wrong.stdout == "" and words in line and "planted-greedy" in line, line
