"""`bench --table` names runs so that two servers serving the same model are told apart: by
their address (host:port), with the shared beginning dropped where the names are too long."""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import urlsplit

from tests.support.fake_openai import running_fake
from tests.support.limited_run import ROOT


def test_bench_table_tells_two_servers_apart() -> None:
    with running_fake("ok") as first, running_fake("ok") as second:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SPECVIEW_CONFIG": os.devnull}
        done = subprocess.run([sys.executable, "-m", "specview", "bench", f"url:{first.url}", f"url:{second.url}",
                               "--table"], capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[1:3]
    names = [row.strip().split("  ")[0] for row in rows]
    ports = [str(urlsplit(server.url).port) for server in (first, second)]
    assert len(set(names)) == 2, rows
    for name, port in zip(names, ports, strict=True):
        assert port in name and "fake-model" in name, name
