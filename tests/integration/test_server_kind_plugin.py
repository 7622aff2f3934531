"""A server kind from an installed package (entry-point group `specview.server_kinds`), end to end.

A tiny plugin package is built in tmp_path from its pyproject and installed by pip (offline:
`--no-index --no-build-isolation`, into a folder of its own on the child's PYTHONPATH). Its
pyproject names an in-tree build backend of a few lines because this machine has no `wheel`
package for setuptools to build with and no network to fetch one; pip still builds, installs and
writes the dist-info that `importlib.metadata` reads, as for any plugin. Then `specview` in a
child process accepts `--server tinyengine`, detects a small real TinyEngine server on 127.0.0.1
by itself, and streams from it; a plugin that fails to load is one line naming it and its file, and
specview goes on with the kinds that loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from specview.backends.remote.registry import server_ids
from tests.support.limited_run import base_env
from tests.support.served import send_body, served, sse_event

ROOT = Path(__file__).resolve().parents[2]

BACKEND = '''"""A PEP 517 backend: this folder's packages and the pyproject's entry points, packed as a wheel."""
import base64, hashlib, tomllib, zipfile
from pathlib import Path


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
    dist = f"{project['name'].replace('-', '_')}-{project['version']}"
    files = {p.as_posix(): p.read_bytes() for p in sorted(Path(".").glob("*/*.py"))}
    points = "".join(f"[{group}]\\n" + "".join(f"{k} = {v}\\n" for k, v in entries.items())
                     for group, entries in project["entry-points"].items())
    files[f"{dist}.dist-info/METADATA"] = (
        f"Metadata-Version: 2.1\\nName: {project['name']}\\nVersion: {project['version']}\\n").encode()
    files[f"{dist}.dist-info/WHEEL"] = (
        b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    files[f"{dist}.dist-info/entry_points.txt"] = points.encode()
    record = [f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
              f"{len(data)}" for name, data in files.items()]
    files[f"{dist}.dist-info/RECORD"] = "\\n".join([*record, f"{dist}.dist-info/RECORD,,", ""]).encode()
    wheel = f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w") as out:
        for name, data in files.items():
            out.writestr(name, data)
    return wheel
'''

PYPROJECT = '''[build-system]
requires = []
build-backend = "wheel_backend"
backend-path = ["."]

[project]
name = "{name}"
version = "0.1"

[project.entry-points."specview.server_kinds"]
{point} = "{module}:KIND"
'''

TINY_KIND = '''"""TinyEngine: /tiny/info names it; its /metrics counts drafts under the `tiny:` prefix."""
from typing import Any

from specview.backends.remote.server_kind import Probe, ServerFacts, ServerKind


class TinyEngineKind(ServerKind):
    id = "tinyengine"
    title = "TinyEngine"
    priority = 5  # probed before the built-in families
    metrics_prefix = "tiny"

    def identify(self, conn: Probe) -> Any | None:
        return conn.probe_json(f"{conn.root}/tiny/info")

    def recognised(self, identified: Any | None) -> bool:
        return isinstance(identified, dict) and identified.get("engine") == "tinyengine"

    def facts(self, conn: Probe, identified: Any | None, gamma: int | None) -> ServerFacts:
        version = str(identified.get("version"))[:20] if isinstance(identified, dict) else None
        return ServerFacts(self.id, version, gamma, True, self.has_metrics(conn))


KIND = TinyEngineKind()
'''

BROKEN_KIND = 'raise ImportError("specview_broken needs tinylib, which is not installed")\n'

METRICS = ("tiny:spec_decode_num_drafts_total 4\ntiny:spec_decode_num_draft_tokens_total 8\n"
           "tiny:spec_decode_num_accepted_tokens_total 6\n")
WORDS = (" one", " two", " three")


def install_plugin(root: Path, name: str, module: str, point: str, source: str) -> Path:
    """Build the plugin from its pyproject and pip-install it into a folder of its own; that folder."""
    project = root / f"{name}-src"
    (project / module).mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT.format(name=name, point=point, module=module))
    (project / "wheel_backend.py").write_text(BACKEND)
    (project / module / "__init__.py").write_text(source)
    site = root / f"{name}-site"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                          "--no-build-isolation", "--disable-pip-version-check", "--target", str(site), str(project)],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (site / module / "__init__.py").is_file() and list(site.glob("*.dist-info/entry_points.txt"))
    return site


class TinyServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.release = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        answers = {
            "/v1/models": json.dumps({"object": "list", "data": [{"id": "tiny", "object": "model", "owned_by": "me"}]}),
            "/tiny/info": json.dumps({"engine": "tinyengine", "version": "0.1"}),
        }
        if self.path == "/metrics":
            send_body(self, 200, METRICS.encode(), "text/plain; version=0.0.4")
        elif self.path in answers:
            send_body(self, 200, answers[self.path].encode())
        else:
            send_body(self, 404, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        chunks = [{"choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}]} for word in WORDS]
        send_body(self, 200, b"".join(map(sse_event, [*chunks, None])), "text/event-stream")


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_plugin(tmp_path_factory.mktemp("plugin"), "specview-tinyengine", "specview_tinyengine",
                          "tinyengine", TINY_KIND)


@pytest.fixture
def tiny_server() -> Iterator[TinyServer]:
    server = TinyServer()
    with served(server, server.release):
        yield server


def specview(site: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = base_env(home, {"PYTHONPATH": f"{site}:{ROOT}", "NO_COLOR": "1"})
    return subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True, timeout=120,
                          env=env, stdin=subprocess.DEVNULL, cwd=home)


def test_an_installed_server_kind_is_listed_accepted_and_detected(tiny_site: Path, tiny_server: TinyServer,
                                                                  tmp_path: Path) -> None:
    helped = specview(tiny_site, tmp_path, "--help")
    assert helped.returncode == 0, helped.stderr
    # by priority: the plugin's 5 before every built-in kind, generic last
    listed = ", ".join(["auto", "tinyengine", *server_ids()])
    assert listed in " ".join(helped.stdout.split()) and listed.endswith(", generic")
    detected = specview(tiny_site, tmp_path, "watch", "--url", tiny_server.url, "--count", "1", "--interval", "0.05")
    assert detected.returncode == 0, detected.stderr
    assert detected.stdout.splitlines()[0] == f"TinyEngine 0.1 · {tiny_server.url}"  # found by its own probe
    named = specview(tiny_site, tmp_path, "watch", "--url", tiny_server.url, "--server", "tinyengine", "--count", "1",
                     "--interval", "0.05")
    assert named.returncode == 0 and named.stdout.splitlines()[0] == f"TinyEngine 0.1 · {tiny_server.url}"
    streamed = specview(tiny_site, tmp_path, "bench", "--url", f"{tiny_server.url}/v1", "--server", "tinyengine",
                        "--json")
    assert streamed.returncode == 0, streamed.stderr
    stats = json.loads(streamed.stdout)
    assert stats["backend"] == "openai" and stats["text"] == "".join(WORDS) and stats["tokens"] == len(WORDS)
    without = specview(ROOT / "no-such-site", tmp_path, "watch", "--url", tiny_server.url, "--server", "tinyengine")
    assert without.returncode == 2 and "invalid choice: 'tinyengine'" in without.stderr  # the plugin made the name
    assert list(tmp_path.iterdir()) == []  # nothing written where the user did not ask


def test_a_plugin_that_fails_to_load_is_one_line_naming_it(tmp_path: Path, tiny_server: TinyServer) -> None:
    site = install_plugin(tmp_path, "specview-broken", "specview_broken", "broken", BROKEN_KIND)
    home = tmp_path / "home"
    home.mkdir()
    out = specview(site, home, "watch", "--url", tiny_server.url, "--count", "1")
    assert out.returncode == 0 and "Traceback" not in out.stderr  # the built-in kinds still watch the server
    assert out.stderr.strip().splitlines() == [f"specview: plugin specview.server_kinds broken = specview_broken:KIND "
                                               f"({site}/specview_broken/__init__.py) failed to load and is left out: "
                                               "ImportError: specview_broken needs tinylib, which is not installed"]
    simulated = specview(site, home, "bench", "--rounds", "20", "--json")  # a run that needs no server kind
    assert simulated.returncode == 0 and json.loads(simulated.stdout)["backend"] == "sim"
