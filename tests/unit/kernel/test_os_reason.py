"""An OS error's reason in the user's language: the common errnos and specview's own refusals
(a link, a FIFO) from the catalog, others as the system wrote them."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest

from specview.boundary.safe_files import Refused, open_regular, write_new
from specview.features.record.recording import scan_headers
from specview.kernel.errors import RecordingError, describe_error
from specview.kernel.os_reason import OS_REASONS, os_reason
from specview.texts.catalog import Phrase, catalog, languages

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_named_errno_has_words_in_every_language() -> None:
    for key in OS_REASONS.values():
        for lang in languages():
            assert key in catalog(lang)
    for lang in languages():
        assert all(f"oserr.kind.{k}" in catalog(lang) for k in ("link", "folder", "fifo", "device", "socket"))


def test_a_missing_file_reads_in_chinese_and_english(tmp_path: Path) -> None:
    with pytest.raises(OSError) as got:
        open_regular(tmp_path / "none.jsonl")
    said = os_reason(got.value)
    assert isinstance(said, Phrase)
    assert said.render("en") == "no such file or folder" and CJK.search(said.render("zh"))


def test_a_refused_link_says_what_it_is_in_the_screens_language(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    os.symlink(tmp_path / "real", tmp_path / "link")
    with pytest.raises(Refused) as got:
        write_new(tmp_path / "link", "y")
    said = os_reason(got.value)
    assert isinstance(said, Phrase) and "symbolic link" in said.render("en")
    assert "符号链接" in said.render("zh") and "symbolic" not in said.render("zh")
    assert str(got.value).endswith(got.value.strerror) and "symbolic link" in str(got.value)  # English as before


def test_a_recording_that_is_a_folder_is_refused_in_chinese(tmp_path: Path) -> None:
    folder = tmp_path / "rec.jsonl"
    folder.mkdir()
    with pytest.raises(RecordingError) as got:
        scan_headers(folder)
    zh = describe_error(got.value, "zh")
    assert "文件夹" in zh and "folder" not in zh


def test_an_errno_without_words_is_quoted_as_the_system_wrote_it() -> None:
    exc = OSError(errno.EIO, os.strerror(errno.EIO))
    assert errno.EIO not in OS_REASONS and os_reason(exc) == os.strerror(errno.EIO)
    assert os_reason(OSError()) == "OSError"
