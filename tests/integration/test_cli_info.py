"""`specview info` as users run it: real `python -m specview` processes with a home, config and state
folders of their own and SPECVIEW_* variables; text and JSON, zh, every origin, credentials never
printed, and names pointed at a FIFO, a folder or a dangling link described within a bounded time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LIMIT_S = 60.0  # the whole command, the llama.cpp build's child included; a blocked read would pass it
KEY = "sk-info-AMBIENT-0123456789"
CONFIG_KEY = "sk-info-CONFIG-0123456789"


def home_env(home: Path, **extra: str) -> dict[str, str]:
    """The test's environment without the user's SPECVIEW_* settings; every folder under `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECVIEW_") and k != "OPENAI_API_KEY"}
    env.update(NO_COLOR="1", HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
               XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"), PATH="/usr/bin:/bin", **extra)
    return env


def info(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True,
                         timeout=LIMIT_S, env=env, stdin=subprocess.DEVNULL, cwd=env["HOME"])
    assert time.monotonic() - started < LIMIT_S
    return out


def as_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    out = info(env, "info", "--json", *args)
    assert out.returncode == 0, out.stderr
    report: dict[str, Any] = json.loads(out.stdout)
    return report


def write_config(home: Path, text: str) -> Path:
    folder = home / "config" / "specview"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(text)
    return folder / "config.toml"


def by_key(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["key"]: s for s in report["settings"]}


def test_each_origin_in_json(tmp_path: Path) -> None:
    path = write_config(tmp_path, f'speed = 2\npreset = "medusa"\ntheme = "ansi"\napi_key = "{CONFIG_KEY}"\n')
    env = home_env(tmp_path, SPECVIEW_PRESET="eagle3", SPECVIEW_THEME="okabe-ito", OPENAI_API_KEY=KEY)
    report = as_json(env, "--theme", "high-contrast")
    found = {k: (s["value"], s["origin"], s["where"]) for k, s in by_key(report).items()}
    assert found["speed"] == (2, "file", str(path))  # the file
    assert found["preset"] == ("eagle3", "env", "SPECVIEW_PRESET")  # a variable over the file
    assert found["theme"] == ("high-contrast", "option", "--theme")  # the command line over a variable
    assert found["fps"][1:] == ("default", "")
    assert found["api_key"] == ("***", "file", str(path))
    assert report["environment"]["OPENAI_API_KEY"] == "***"
    places = {p["id"]: p for p in report["paths"]}
    assert places["config"]["path"] == str(path) and places["config"]["what"]["kind"] == "file"
    assert places["presets"]["what"]["kind"] == "missing"
    assert places["state"]["path"] == str(tmp_path / "state" / "specview")
    assert places["crash_log"]["path"] == str(tmp_path / "state" / "specview" / "log" / "crash.log")
    assert report["versions"]["specview"] and report["versions"]["textual"]
    assert "cpu" in report["llama_cpp"]


def test_text_says_the_origins_and_never_a_key(tmp_path: Path) -> None:
    write_config(tmp_path, f'speed = 2\napi_key = "{CONFIG_KEY}"\n')
    env = home_env(tmp_path, SPECVIEW_LANG="en", SPECVIEW_PRESET="eagle3", OPENAI_API_KEY=KEY,
                   SPECVIEW_EXPORT_DIR=f"/tmp/{KEY}")  # a value that repeats the key: masked there too
    out = info(env, "info", "--preset", "medusa")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    rows = {line.split()[0]: line for line in out.stdout.splitlines() if line.startswith("  ") and line.split()}
    assert rows["preset"].split()[1] == "medusa" and rows["preset"].endswith("command line (--preset)")
    assert rows["speed"].endswith("config file") and rows["lang"].endswith("environment (SPECVIEW_LANG)")
    assert rows["fps"].endswith("default")
    assert KEY not in out.stdout and CONFIG_KEY not in out.stdout and "set (hidden)" in rows["api_key"]
    for heading in ("llama.cpp", "Files and folders", "Settings (value, origin)", "Environment"):
        assert heading in out.stdout.splitlines()


def test_in_chinese(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    out = info(env, "info", "--lang", "zh")
    assert out.returncode == 0, out.stderr
    assert "文件和文件夹" in out.stdout and "配置文件" in out.stdout and "命令行（--lang）" in out.stdout
    assert "默认值" in out.stdout and "Files and folders" not in out.stdout
    via_env = info(home_env(tmp_path, SPECVIEW_LANG="zh"), "info")
    assert "环境变量（SPECVIEW_LANG）" in via_env.stdout


def test_names_pointed_at_a_fifo_a_folder_or_a_dangling_link(tmp_path: Path) -> None:
    """Before: nothing said what these were. After: each described, nothing opened, exit 0 in time."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    (tmp_path / "state" / "specview" / "log").mkdir(parents=True)
    (tmp_path / "config" / "specview" / "presets").mkdir(parents=True)
    os.mkfifo(tmp_path / "config" / "specview" / "presets" / "fifo.toml")  # a user preset nobody writes
    (tmp_path / "state" / "specview" / "log" / "crash.log").symlink_to(tmp_path / "fifo")
    env = home_env(tmp_path, SPECVIEW_CONFIG=str(tmp_path / "fifo"), SPECVIEW_LLAMA_LOG=str(tmp_path / "folder"),
                   SPECVIEW_DIFF_LAST=str(tmp_path / "dangling"), SPECVIEW_EXPORT_DIR=str(tmp_path / "fifo"),
                   SPECVIEW_LLAMA_SERVER=str(tmp_path / "fifo"))
    report = as_json(env)
    what = {p["id"]: p["what"] for p in report["paths"]}
    assert what["config"]["kind"] == "fifo" and what["exports"]["kind"] == "fifo"
    assert what["llama_log"]["kind"] == "folder"
    assert {p["id"]: p["toml_files"] for p in report["paths"]}["presets"] == 1
    assert what["last_diff"] == {"kind": "link", "size": None, "link": str(tmp_path / "gone"), "dangling": True,
                                 "errno": None}
    assert what["crash_log"]["kind"] == "fifo" and what["crash_log"]["link"] == str(tmp_path / "fifo")
    assert report["llama_server"]["what"]["kind"] == "fifo" and report["llama_server"]["version"] is None
    text = info(env, "info").stdout
    assert "a FIFO: never opened" in text and "a dangling link to" in text
    assert "a folder, where specview wants a file" in text
    assert "specview writes no file through a link" in text  # the crash log's link
    assert not (tmp_path / "gone").exists()  # nothing was written through the link


def test_a_bad_config_is_said_on_stderr_and_info_still_reports(tmp_path: Path) -> None:
    write_config(tmp_path, "speed = [\n")
    out = info(home_env(tmp_path), "info")
    assert out.returncode == 0
    assert out.stderr.startswith("specview: warning: ") and "Settings (value, origin)" in out.stdout


def test_info_imports_nothing_heavy(tmp_path: Path) -> None:
    code = ("import sys\nfrom specview.cli import main\nmain(['info'])\n"
            "print('HEAVY', [m for m in ('textual', 'numpy', 'llama_cpp') if m in sys.modules])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=LIMIT_S,
                         env=home_env(tmp_path), stdin=subprocess.DEVNULL)
    assert "HEAVY []" in out.stdout, out.stderr


def test_the_llama_server_binary_and_its_version(tmp_path: Path) -> None:
    # `make test` builds it and names it; run alone, the checkout's own build
    binary = os.environ.get("SPECVIEW_LLAMA_SERVER") or str(ROOT / "build" / "bin" / "llama-server")
    assert Path(binary).is_file(), f"no llama-server at {binary}: `make llama-server` builds it"
    report = as_json(home_env(tmp_path, SPECVIEW_LLAMA_SERVER=binary))
    server = report["llama_server"]
    assert server["path"] == binary and server["named_by"] == "SPECVIEW_LLAMA_SERVER"
    assert server["version"] and "version" in server["version"]
