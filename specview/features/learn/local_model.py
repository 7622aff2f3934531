"""The local model a run has loaded, as the Learn screens see it (read once per file)."""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec
from typing import Any

from specview.backends.local.gguf_info import ModelInfo, read_gguf_info
from specview.boundary.text import sanitize
from specview.kernel.errors import BackendError, SpecviewError
from specview.texts.catalog import fill


@cache
def _read(path: str) -> ModelInfo | SpecviewError:
    try:
        return read_gguf_info(path)
    except SpecviewError as exc:
        return exc


def read_model_info(path: str) -> ModelInfo | None:
    """The GGUF's metadata, or None when it cannot be read (`model_error` says why)."""
    found = _read(path)
    return found if isinstance(found, ModelInfo) else None


def model_error(path: str, lang: str) -> str | None:
    """Why `read_model_info(path)` returned None, if it did, in `lang`."""
    found = _read(path)
    return found.in_language(lang) if isinstance(found, SpecviewError) else None


def gguf_facts(path: str) -> dict[str, Any]:
    """What Learn 8 (and `learn --json --target`) shows of a GGUF: its name, architecture, width,
    MTP/NextN blocks and fusion tensors checked against the in-trunk (d, 2d) shape. Read afresh
    (the file may have changed since); BackendError when it cannot be read."""
    from specview.features.learn.explain.fusion import gguf_fusion_check

    info = read_gguf_info(path)
    checked = gguf_fusion_check([(t.name, t.shape) for t in info.fusion], info.n_embd)
    for item, tensor in zip(checked, info.fusion, strict=True):
        item["type"] = tensor.kind
    return {"model": info.name, "architecture": info.architecture, "n_embd": info.n_embd,
            "nextn_layers": info.nextn_layers, "tensors": checked}


def memory_numbers(path: str) -> dict[str, Any]:
    """Learn 1's numbers at its default controls with a model: the model's own size selected, as
    the screen selects it (`learn 1 --json --target M`); BackendError when it cannot be read."""
    from specview.features.learn.explain.roofline import gpu_wait_numbers, local_shape

    info = read_gguf_info(path)
    if info.params <= 0 or info.weight_bytes <= 0:
        raise BackendError("cli_use.learn.no_size", path=sanitize(path, 200, one_line=True))
    return gpu_wait_numbers(shape_id="local", local=local_shape(info.name, info.params, info.weight_bytes))


MEASURE_CONTEXT = 64  # tokens already in the cache when the k-token forwards are timed
MEASURE_REPEATS = 3


def measure_forward_costs(path: str, ks: list[int]) -> list[float]:
    """Seconds of one k-token forward of the model at `path`, for each k (median of a few repeats),
    measured in an engine process of its own (a crash of llama.cpp there is an error here)."""
    from specview.backends.local.engine_process import engine_call

    seconds: list[float] = engine_call("specview.features.learn.local_model:forward_costs_here", path, ks)
    return seconds


def forward_costs_here(path: str, ks: list[int]) -> list[float]:
    """`measure_forward_costs` in this process.

    Opens its own context on the model (the weights shared through backends/local/pool.py), with
    MEASURE_CONTEXT tokens already cached, and times the forwards the way a live run calibrates
    (calibrate.measure_verify_costs: at that context, the cache rolled back after each).
    """
    from pathlib import Path

    from specview.backends.local.calibrate import measure_verify_costs
    from specview.backends.local.lib import supports_gpu_offload
    from specview.backends.local.model import ModelRunner

    runner = ModelRunner(Path(path), role="target", n_gpu_layers=-1 if supports_gpu_offload() else 0)
    try:
        widest = max(ks)
        runner.open_context(MEASURE_CONTEXT + widest + 8, n_batch=max(MEASURE_CONTEXT, widest))
        filler = runner.tokenize("The lighthouse keeper climbed the stairs every evening at dusk. " * 8)
        context = (filler * (MEASURE_CONTEXT // max(1, len(filler)) + 1))[:MEASURE_CONTEXT]
        runner.prefill(context)
        return measure_verify_costs(runner, ks, repeats=MEASURE_REPEATS, token=context[-1])
    finally:
        runner.close()


def llama_installed() -> bool:
    """Whether llama-cpp-python (the `llama` extra) can be imported, without importing it (it is slow)."""
    return find_spec("llama_cpp") is not None


def model_hint(lang: str, number: int, llama: bool | None = None) -> str:
    """What to do when Learn screen `number` needs a local model and has none: the exact install
    command when llama-cpp-python is missing, else `--demo` (or --target) for this very screen.
    `llama` says whether it is installed (None: look, `llama_installed()`)."""
    if not (llama_installed() if llama is None else llama):
        return fill("learn.model.install", lang)
    return fill("learn.model.demo", lang, number=number)
