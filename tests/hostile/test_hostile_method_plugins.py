"""Method plugins installed for real (a dist-info with `specview.methods` entry points on the path), from a real
`python -m specview`: a good one adds a method its presets can use; a broken one, or a preset naming a method
no unit provides, is one line naming the file, and the rest of specview still runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.method_unit import UNIT

ROOT = Path(__file__).resolve().parents[2]


def _site(tmp_path: Path) -> Path:
    """An installed distribution with two method entry points: a unit that works and a module that raises."""
    site = tmp_path / "site"
    unit = site / "specview_planted_lookup"
    unit.mkdir(parents=True)
    (unit / "__init__.py").write_text('"""the planted-lookup method"""\n', encoding="utf-8")
    for name, text in UNIT.items():
        (unit / name).write_text(text, encoding="utf-8")
    (site / "broken_plugin").mkdir()
    (site / "broken_plugin" / "__init__.py").write_text("raise ImportError('half installed')\n", encoding="utf-8")
    info = site / "specview_planted_lookup-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: specview-planted-lookup\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[specview.methods]\nplanted-lookup = specview_planted_lookup\nbroken = broken_plugin\n", encoding="utf-8")
    return site


def _preset(tmp_path: Path) -> None:
    """A user preset of the plugin's method: suffix.toml's numbers under another id and method."""
    text = (ROOT / "specview" / "presets" / "suffix.toml").read_text(encoding="utf-8")
    text = text.replace('id = "suffix"', 'id = "mine"').replace('method = "suffix"', 'method = "planted-lookup"')
    folder = tmp_path / "config" / "specview" / "presets"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(text, encoding="utf-8")


def _specview(*argv: str, tmp_path: Path, site: Path | None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SPECVIEW_")}
    paths = [str(site)] if site is not None else []
    env = base | {"PYTHONPATH": os.pathsep.join([*paths, str(ROOT)]), "SPECVIEW_CONFIG": str(tmp_path / "none.toml"),
                  "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return subprocess.run([sys.executable, "-m", "specview", *argv], capture_output=True, text=True, timeout=120,
                          env=env, cwd=tmp_path)


def test_an_installed_plugin_adds_a_method_and_a_broken_one_is_one_line(tmp_path: Path) -> None:
    site = _site(tmp_path)
    _preset(tmp_path)
    out = _specview("presets", "--json", tmp_path=tmp_path, site=site)
    assert out.returncode == 0, out.stderr
    methods = {p["id"]: (p["method"], p["method_unit"]["acceptance_model"]) for p in json.loads(out.stdout)}
    assert methods["mine"] == ("planted-lookup", "variable-depth") and methods["suffix"] == ("suffix", "variable-depth")
    (line,) = out.stderr.strip().splitlines()
    assert "broken = broken_plugin" in line and "half installed" in line and "Traceback" not in out.stderr
    bench = _specview("bench", "--preset", "mine", "--rounds", "50", "--json", tmp_path=tmp_path, site=site)
    assert bench.returncode == 0, bench.stderr


def test_a_preset_whose_method_is_not_installed_is_one_line_and_exit_2_when_named(tmp_path: Path) -> None:
    _preset(tmp_path)
    out = _specview("--lang", "zh", "presets", tmp_path=tmp_path, site=None)
    assert out.returncode == 0 and "qwen3.6-mtp" in out.stdout and "mine" not in out.stdout
    (line,) = out.stderr.strip().splitlines()
    assert str(tmp_path / "config" / "specview" / "presets" / "mine.toml") in line and "planted-lookup" in line
    assert "已跳过该预设文件" in line
    named = _specview("bench", "--preset", "mine", "--rounds", "50", tmp_path=tmp_path, site=None)
    assert named.returncode == 2 and "mine.toml" in named.stderr.splitlines()[-1] and "Traceback" not in named.stderr
