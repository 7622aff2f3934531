"""The line a user reads when the local engine's process dies: what, of which signal, why, what to try."""

from __future__ import annotations

import signal

import pytest

from specview.backends.local.crash import EngineCrashed, crash_error, read_tail, signal_name

LOAD = ["info: load_tensors:   CPU_Mapped model buffer size =   235.16 MiB",
        "info: llama_context: n_ctx = 512"]


def test_a_signal_is_named() -> None:
    assert signal_name(-signal.SIGSEGV) == "SIGSEGV"
    assert signal_name(0) is None


def test_a_crash_in_amx_kernels_says_so_and_what_to_try() -> None:
    tail = ["info: load_tensors:   AMX model buffer size =   100.00 MiB", *LOAD,
            "Fatal Python error: Segmentation fault", "", "Thread 0x00007f (most recent call first):",
            '  File "/x/engine.py", line 12 in step']
    error = crash_error(-signal.SIGSEGV, tail)
    assert isinstance(error, EngineCrashed)
    en = error.in_language("en")
    assert "SIGSEGV" in en and "AMX" in en and "--no-repack" in en
    assert "Fatal Python error" not in en and "n_ctx = 512" in en  # llama.cpp's last line, not Python's stack
    assert "AMX" in error.in_language("zh") and "--no-repack" in error.in_language("zh")


@pytest.mark.parametrize(("sig", "words"), [(signal.SIGKILL, "memory"), (signal.SIGILL, "instruction"),
                                            (signal.SIGSEGV, "llama.cpp crashed")])
def test_each_signal_has_its_likely_cause(sig: signal.Signals, words: str) -> None:
    en = crash_error(-sig, LOAD).in_language("en")
    assert sig.name in en and words in en and "\n" not in en


def test_an_abort_quotes_ggmls_assertion() -> None:
    tail = [*LOAD, "/src/ggml.c:1234: GGML_ASSERT(ne % 32 == 0) failed", "Fatal Python error: Aborted"]
    en = crash_error(-signal.SIGABRT, tail).in_language("en")
    assert "GGML_ASSERT(ne % 32 == 0) failed" in en and "malformed" in en


def test_what_the_child_wrote_is_shown_safe_and_read_from_its_end_only() -> None:
    tail = read_tail(b"x" * 100_000 + b"\ninfo: \x1b[31mred\x1b[0m\n")
    en = crash_error(-signal.SIGSEGV, tail).in_language("en")
    assert "\x1b" not in en and "red" in en
    assert sum(len(line) for line in tail) <= 64 * 1024
