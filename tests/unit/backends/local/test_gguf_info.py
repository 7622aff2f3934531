"""Reading a GGUF's shapes for the Learn screens: real fusion tensors, hostile names, broken files."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from specview.backends.local.gguf_info import NAME_CHARS, read_gguf_info
from specview.features.learn.explain.fusion import gguf_fusion_check
from specview.kernel.errors import BackendError
from tests.support.gguf_factory import truncate_file, write_fusion_gguf, write_tiny_llama


def test_fusion_tensors_and_their_shapes(tmp_path: Path) -> None:
    info = read_gguf_info(write_fusion_gguf(tmp_path / "mtp.gguf", n_embd=64))
    assert info.architecture == "qwen35" and info.n_embd == 64 and info.nextn_layers == 1
    shapes = {t.name: t.shape for t in info.fusion}
    assert shapes == {"blk.1.nextn.eh_proj.weight": (64, 128), "blk.1.nextn.enorm.weight": (64,),
                      "blk.1.nextn.hnorm.weight": (64,)}
    assert info.params == 300 * 64 + 64 * 64 + 64 * 128 + 2 * 64
    assert info.weight_bytes == 4 * info.params  # F32
    checked = gguf_fusion_check([(t.name, t.shape) for t in info.fusion], info.n_embd)
    assert [c["in_trunk"] for c in checked] == [True, False, False]


def test_a_model_without_mtp_has_no_fusion(tmp_path: Path) -> None:
    info = read_gguf_info(write_tiny_llama(tmp_path / "tiny.gguf"))
    assert info.architecture == "llama" and info.n_embd == 128 and info.nextn_layers == 0 and info.fusion == ()
    assert info.params > 0


def test_hostile_tensor_names_are_sanitised(tmp_path: Path) -> None:
    hostile = "\x1b]0;owned\x07blk.9.nextn.eh_proj.weight"
    info = read_gguf_info(write_fusion_gguf(tmp_path / "evil.gguf", extra_name=hostile))
    names = [t.name for t in info.fusion]
    assert "␛]0;owned␇blk.9.nextn.eh_proj.weight" in names
    assert not any("\x1b" in n or "\x07" in n for n in names)


def test_broken_files_are_refused_with_a_reason(tmp_path: Path) -> None:
    good = write_fusion_gguf(tmp_path / "good.gguf")
    with pytest.raises(BackendError, match="cut off"):
        read_gguf_info(truncate_file(good, tmp_path / "cut.gguf", keep=0.002))
    (tmp_path / "text.gguf").write_text("hello")
    with pytest.raises(BackendError, match="not a GGUF"):
        read_gguf_info(tmp_path / "text.gguf")
    (tmp_path / "empty.gguf").write_bytes(b"")
    with pytest.raises(BackendError, match="not a GGUF"):
        read_gguf_info(tmp_path / "empty.gguf")
    huge = tmp_path / "huge.gguf"
    huge.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 2**40, 1))
    with pytest.raises(BackendError, match="implausible"):
        read_gguf_info(huge)
    with pytest.raises(BackendError, match="cannot read"):
        read_gguf_info(tmp_path / "missing.gguf")


def test_long_names_are_cut_and_huge_ones_refused(tmp_path: Path) -> None:
    info = read_gguf_info(write_fusion_gguf(tmp_path / "long.gguf", arch="a" * 5000))
    assert info.architecture.startswith("a" * NAME_CHARS) and len(info.architecture) < NAME_CHARS + 40
    assert info.nextn_layers == 1  # the long name still finds its keys
    # a 70 kB architecture: the value is skipped, and the keys named after it are refused
    with pytest.raises(BackendError, match=r"a GGUF name of 700\d\d bytes; not read"):
        read_gguf_info(write_fusion_gguf(tmp_path / "huge.gguf", arch="a" * 70_000))
