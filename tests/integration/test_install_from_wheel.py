"""What users install: the wheel and the sdist `python -m build` makes from this tree, the wheel installed
into a fresh virtual environment (not editable, no extras, run from a folder outside the checkout with no
PYTHONPATH, so nothing of the checkout can be imported), and the commands a new user runs first, the live
view in a real terminal among them. The sdist holds the tests and the docs; `twine check --strict` passes
on both (the README renders as the project's description)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from specview.distribution import NAME
from tests.support.limited_run import base_env
from tests.support.tmux_pane import tmux_pane

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# what a checkout holds that is not the project's: its history, environments, builds, caches, models
LOCAL = (".git", ".venv*", "build", "dist", "site", "*.egg-info", "__pycache__", ".*_cache", "*.gguf",
         "snapshot_report.html")
DRAWN = re.compile(r"tokens / s +\d+\.\d")  # the live view's side panel, measuring


@dataclass(frozen=True)
class Installed:
    """The built distributions, and a fresh venv holding the wheel, with a user's environment for it."""

    wheel: Path
    sdist: Path
    venv: Path
    home: Path
    env: dict[str, str]
    seconds: dict[str, float]

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """`specview ARGS` as the installed command, from the user's home folder."""
        return subprocess.run([str(self.venv / "bin" / "specview"), *args], capture_output=True, text=True,
                              timeout=timeout, env=self.env, cwd=self.home, stdin=subprocess.DEVNULL)


def timed(seconds: dict[str, float], what: str, command: list[str], cwd: Path, timeout: float) -> None:
    started = time.monotonic()
    # not the checkout's PYTHONPATH: its egg-info would tell pip that specview-tui is already installed
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)
    seconds[what] = round(time.monotonic() - started, 1)
    assert done.returncode == 0, f"{what}: {' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    tmp = tmp_path_factory.mktemp("wheel")
    tree, out, venv, home = tmp / "tree", tmp / "dist", tmp / "venv", tmp / "home"
    home.mkdir()
    # built from a copy: setuptools rewrites the tree's egg-info, which a test running `python -m specview`
    # in the checkout meanwhile would read as specview's metadata
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*LOCAL))
    seconds: dict[str, float] = {}
    # the sdist first, then the wheel built from it (build's default): a file the sdist lacks fails the wheel
    timed(seconds, "build", [sys.executable, "-m", "build", "--outdir", str(out), str(tree)], tmp, 600)
    (wheel,), (sdist,) = out.glob("*.whl"), out.glob("*.tar.gz")
    # a bare venv (ensurepip would take longer than the rest), filled by this pip through --python
    timed(seconds, "venv", [sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp, 120)
    # no extras: what `pip install specview-tui` brings (textual, numpy, httpx, …), from pip's cache when it has them
    timed(seconds, "install", [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                               "--quiet", "--disable-pip-version-check", str(wheel)], tmp, 600)
    env = base_env(home, {"NO_COLOR": "1"})
    env.pop("PYTHONPATH")
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    print(f"built, made a venv and installed the wheel in {seconds} s")
    return Installed(wheel, sdist, venv, home, env, seconds)


def test_the_wheel_and_the_sdist_pass_twine_check(installed: Installed) -> None:
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(installed.wheel),
                           str(installed.sdist)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout
    with zipfile.ZipFile(installed.wheel) as wheel:
        metadata = wheel.read(f"{NAME.replace('-', '_')}-{PROJECT['version']}.dist-info/METADATA").decode()
    assert f"Name: {NAME}\n" in metadata and "Description-Content-Type: text/markdown" in metadata
    assert all(f"Provides-Extra: {extra}\n" in metadata for extra in ("llama", "demo", "serve"))


def test_the_sdist_holds_the_tests_and_the_docs(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as sdist:
        held = {Path(*Path(name).parts[1:]).as_posix() for name in sdist.getnames()}
    wanted = ["pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE", "Makefile"]
    for folder in ("tests", "docs"):  # docs/ when the tree has it
        wanted += [p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts and p.suffix in {".py", ".svg", ".md", ".toml"}]
    assert any(name.startswith("tests/") for name in wanted)
    missing = [name for name in wanted if name not in held]
    assert missing == [], f"the sdist lacks (MANIFEST.in): {missing[:20]}"


def test_the_wheel_holds_the_package_and_nothing_of_the_checkout(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        tops = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert tops == {"specview", f"{NAME.replace('-', '_')}-{PROJECT['version']}.dist-info"}
    python = str(installed.venv / "bin" / "python")
    done = subprocess.run([python, "-c", "import specview, importlib.metadata as m, sys\n"
                           f"print(specview.__file__); print(m.version({NAME!r})); print(sys.path)"],
                          capture_output=True, text=True, timeout=60, env=installed.env, cwd=installed.home)
    assert done.returncode == 0, done.stderr
    where, version, path = done.stdout.splitlines()
    assert Path(where).is_relative_to(installed.venv) and version == PROJECT["version"]
    assert str(ROOT) not in path


def test_the_first_commands_run_from_the_installed_wheel(installed: Installed) -> None:
    shown = installed.run("--version")
    assert shown.returncode == 0 and shown.stdout.strip() == f"specview {PROJECT['version']}", shown
    bench = installed.run("bench", "--preset", "glm-5.2-mtp", "--rounds", "200", "--seed", "3", "--json")
    assert bench.returncode == 0, bench.stderr
    stats = json.loads(bench.stdout)
    assert stats["backend"] == "sim" and stats["rounds"] == 200 and stats["tokens_per_second"] > 0
    learn = installed.run("learn", "1", "--json")
    assert learn.returncode == 0 and json.loads(learn.stdout)["ceiling_tps"] > 0, learn.stderr
    calc = installed.run("calc", "--alpha", "0.7", "--gamma", "4", "--c", "0.05", "--json")
    assert calc.returncode == 0 and json.loads(calc.stdout)["expected_tau"] == pytest.approx(2.7731, abs=1e-4)
    presets = installed.run("presets", "--json")
    assert presets.returncode == 0, presets.stderr
    assert "glm-5.2-mtp" in {preset["id"] for preset in json.loads(presets.stdout)}
    assert all(not run.stderr for run in (shown, bench, learn, calc, presets))


def test_the_live_view_draws_in_a_terminal(installed: Installed, tmp_path: Path) -> None:
    env = {**installed.env, "TERM": "xterm-256color"}
    # tmux starts the pane in the checkout: `env -C` moves it to the user's home first
    command = ["env", "-C", str(installed.home), str(installed.venv / "bin" / "specview"), "--preset", "glm-5.2-mtp"]
    with tmux_pane(tmp_path / "tmux", command, 100, 30, env) as pane:
        screen = pane.wait_for(lambda s: "accepted" in s and DRAWN.search(s) is not None,
                               timeout=90, what="the token legend and a measured tokens / s")
        assert "glm-5.2-mtp" in screen or "GLM" in screen
        pane.keys("q")
        assert pane.wait_exit(timeout=30) == 0
