"""A throwaway OpenSSH server on 127.0.0.1, for tests that log in for real.

Everything lives in one temp folder: a fresh host key, a fresh client key (the only authorised
one), known_hosts pinned to that host key, and the server's own config, so no system file is
read or changed (the only thing outside the folder is the empty privilege-separation directory
OpenSSH needs when it runs as root, /run/sshd, made if missing). The server is ended by process
id when the context closes.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.processes import stop

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"  # sshd must be started by its absolute path (re-exec)
START_TIMEOUT_S = 20.0


@dataclass(frozen=True, slots=True)
class SshServer:
    """A running server: where it listens and how to log in."""

    port: int
    user: str
    client_key: Path
    known_hosts: Path
    log: Path

    def ssh(self, remote_command: str) -> list[str]:
        """`ssh -tt` into the server running `remote_command`, reading no user or system config."""
        return ["ssh", "-tt", "-F", "/dev/null", "-p", str(self.port), "-i", str(self.client_key),
                "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                "-o", f"UserKnownHostsFile={self.known_hosts}", "-o", "GlobalKnownHostsFile=/dev/null",
                "-o", "LogLevel=ERROR", f"{self.user}@127.0.0.1", remote_command]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "specview-test", "-f", str(path)],
                   check=True, timeout=30, capture_output=True)


@contextmanager
def sshd(folder: Path) -> Iterator[SshServer]:
    """Start sshd on a free 127.0.0.1 port with keys and config made in `folder`; stop it after."""
    folder.mkdir(parents=True, exist_ok=True)
    host_key, client_key = folder / "host_key", folder / "client_key"
    _keygen(host_key)
    _keygen(client_key)
    authorized = folder / "authorized_keys"
    authorized.write_text(client_key.with_suffix(".pub").read_text(encoding="utf-8"), encoding="utf-8")
    port = _free_port()
    known_hosts = folder / "known_hosts"
    host_type, host_b64 = host_key.with_suffix(".pub").read_text(encoding="utf-8").split()[:2]
    known_hosts.write_text(f"[127.0.0.1]:{port} {host_type} {host_b64}\n", encoding="utf-8")
    config = folder / "sshd_config"
    config.write_text("\n".join([
        f"Port {port}",
        "ListenAddress 127.0.0.1",
        f"HostKey {host_key}",
        f"PidFile {folder / 'sshd.pid'}",
        f"AuthorizedKeysFile {authorized}",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PermitRootLogin prohibit-password",
        "UsePAM no",
        "StrictModes no",  # the keys live in a temp folder, not a home directory
        "PrintMotd no",
        "PrintLastLog no",
        "X11Forwarding no",
        "AllowTcpForwarding no",
        "PermitUserEnvironment no",
        "",
    ]), encoding="utf-8")
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    log = folder / "sshd.log"
    with log.open("wb") as log_file:
        proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdin=subprocess.DEVNULL,
                                stdout=log_file, stderr=log_file)
    try:
        _wait_listening(port, proc, log)
        yield SshServer(port, getpass.getuser(), client_key, known_hosts, log)
    finally:
        stop(proc)


def _wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"sshd exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"sshd did not listen on port {port} within {START_TIMEOUT_S:.0f} s")
