"""Content-Encoding under specview's bound (backends/remote/decode.py): at most one layer, and no
inflate step larger than PIECE_BYTES, whatever the ratio."""

from __future__ import annotations

import struct
import zlib

import pytest

from specview.backends.remote.decode import PIECE_BYTES, Damaged, RefusedEncoding, body_encoding, inflated


def _compress(data: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(data) + packer.flush()


def _zeros_gzip(mib: int) -> bytes:
    """A valid gzip body of `mib` MiB of zeros, made without compressing them all (which takes seconds):
    after a full flush, each MiB of zeros compresses to the same block, so the body is the first MiB's,
    that block repeated, and the last MiB's with the trailer of the whole (its CRC and length)."""
    one = bytes(2**20)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = packer.compress(one) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(one) + packer.flush(zlib.Z_FULL_FLUSH)
    tail = packer.compress(one) + packer.flush()
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(one, crc)
    return head + block * (mib - 2) + tail[:-8] + struct.pack("<II", crc, mib * 2**20 % 2**32)


@pytest.mark.parametrize(("values", "expected"), [([], None), (["identity"], None), ([" GZip "], "gzip"),
                                                  (["x-gzip"], "gzip"), (["deflate", "identity"], "deflate")])
def test_one_layer_or_none(values: list[str], expected: str | None) -> None:
    assert body_encoding(values) == expected


@pytest.mark.parametrize("values", [["gzip", "gzip"], ["deflate", "gzip"], ["gzip", "br"]])
def test_stacked_layers_are_refused(values: list[str]) -> None:
    stacked = r"stacked compression \(Content-Encoding: .*\): specview decodes at most one"
    with pytest.raises(RefusedEncoding, match=stacked):
        body_encoding(values)


@pytest.mark.parametrize("value", ["br", "zstd", "compress", "\x1b]0;x\x07"])
def test_an_encoding_zlib_does_not_speak_is_refused(value: str) -> None:
    with pytest.raises(RefusedEncoding) as refused:
        body_encoding([value])
    assert "does not decode" in str(refused.value) and "\x1b" not in str(refused.value)


@pytest.mark.parametrize(("encoding", "wbits"), [("gzip", 31), ("deflate", 15), ("deflate", -15)])
def test_a_bomb_comes_out_in_bounded_pieces(encoding: str, wbits: int) -> None:
    body = _compress(b"\0" * (64 * PIECE_BYTES), wbits)  # 4 MiB of zeros in a few kB
    chunks = [body[i:i + 999] for i in range(0, len(body), 999)]
    pieces = list(inflated(chunks, encoding))
    assert max(len(p) for p in pieces) <= PIECE_BYTES
    assert sum(len(p) for p in pieces) == 64 * PIECE_BYTES


def test_a_reader_that_stops_early_inflates_no_further() -> None:
    body = _zeros_gzip(1024)  # 1 GiB in one chunk: only what is read gets inflated
    pieces = inflated([body], "gzip")
    assert len(next(pieces)) == PIECE_BYTES
    pieces.close()


def test_the_repeated_block_body_is_the_zeros_it_stands_for() -> None:
    assert zlib.decompress(_zeros_gzip(3), 31) == bytes(3 * 2**20)


def test_no_encoding_passes_bytes_through() -> None:
    assert list(inflated([b"ab", b"c"], None)) == [b"ab", b"c"]


def test_a_damaged_body_is_named() -> None:
    with pytest.raises(Damaged, match="cannot inflate"):
        list(inflated([b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + b"\xff" * 8], "gzip"))  # block type 3
