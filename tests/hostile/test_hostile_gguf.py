"""A GGUF file from someone else: its metadata is text from outside too."""

from __future__ import annotations

from pathlib import Path

import gguf
from gguf_factory import write_tiny_llama
from hostile_checks import OSC52, TITLE, assert_terminal_clean, one_error_line
from limited_run import base_env, run_cli


def test_hostile_gguf_metadata_is_one_clean_line(tmp_path: Path) -> None:
    """An architecture name carrying escapes: llama.cpp refuses it and quotes it; so do we, visibly."""
    path = tmp_path / f"model{OSC52}.gguf"
    writer_class = gguf.GGUFWriter

    class HostileWriter(writer_class):  # type: ignore[misc, valid-type]
        def __init__(self, file: str, arch: str, *args: object, **kwargs: object) -> None:
            super().__init__(file, arch + TITLE, *args, **kwargs)

    gguf.GGUFWriter = HostileWriter
    try:
        write_tiny_llama(path)
    finally:
        gguf.GGUFWriter = writer_class
    run = run_cli(["bench", "--target", str(path), "--max-tokens", "4", "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2, run.err
    assert "␛]0;PWNED-TITLE␇" in line or "\\x1b]0;PWNED-TITLE" in line
    assert_terminal_clean(run.stdout)
    assert_terminal_clean((tmp_path / "state").joinpath("specview", "log", "llama.log").read_bytes())
