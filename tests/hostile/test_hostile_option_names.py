"""An unknown option or command is quoted back (cli/option_check.py): never raw, never long."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ENV = {**os.environ, "NO_COLOR": "1", "SPECVIEW_CONFIG": os.devnull}


@pytest.mark.parametrize("word", ["--g\x1b]0;PWNED\x07ama", "--" + "g" * 120_000, "b\x1b[2Jenc", "x" * 120_000])
def test_a_hostile_unknown_word_is_one_short_clean_line(word: str) -> None:
    out = subprocess.run([sys.executable, "-m", "specview", word, "5"], capture_output=True, text=True, timeout=60,
                         env=ENV, stdin=subprocess.DEVNULL)
    assert out.returncode == 2
    (line,) = out.stderr.splitlines()
    assert line.startswith("specview: error: ") and len(line) < 400
    assert "\x1b" not in line and "\x07" not in line
