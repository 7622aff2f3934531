"""The llama.cpp build's features: its system info read by backend, a child's answer checked field by
field, and the real library asked in a child process (never in this one)."""

from __future__ import annotations

import pytest

from specview.backends.local.build_probe import BuildFeatures, installed, parse_system_info, probe_build, read_answer

CUDA_INFO = ("CUDA : ARCHS = 890 | USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 | "
             "CPU : SSE3 = 1 | AVX2 = 1 | AMX_INT8 = 1 | LLAMAFILE = 0 | REPACK = 1 | ")


def test_system_info_is_read_by_backend() -> None:
    sections = parse_system_info(CUDA_INFO)
    assert sections == {"CUDA": {"ARCHS": "890", "USE_GRAPHS": "1", "PEER_MAX_BATCH_SIZE": "128"},
                        "CPU": {"SSE3": "1", "AVX2": "1", "AMX_INT8": "1", "LLAMAFILE": "0", "REPACK": "1"}}
    build = BuildFeatures(("CPU", "CUDA"), sections, gpu_offload=True)
    assert build.has("cuda") and not build.has("Metal") and not build.has("BLAS")
    assert build.cpu_features() == ["SSE3", "AVX2", "AMX_INT8", "REPACK"]
    assert BuildFeatures(("CPU", "BLAS")).has("BLAS")  # a backend with no section of its own


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b'{"backends": "CPU", "system_info": 7}'])
def test_a_garbledread_answer_is_a_failure_or_empty(raw: bytes) -> None:
    build = read_answer(raw, 1)
    assert build.backends == () and build.sections == {} and build.gpu_offload is False


def test_the_childs_error_is_said() -> None:
    assert read_answer(b'{"error": "OSError"}', 0).failed == "OSError"


@pytest.mark.skipif(not installed(), reason="llama-cpp-python is not installed")
def test_the_installed_build_is_asked_in_a_child() -> None:
    build = probe_build()
    assert build.failed is None and build.has("CPU") and build.cpu_features()


def test_a_hanging_child_is_a_timeout() -> None:
    assert probe_build(timeout=0.001).failed == "timeout"
