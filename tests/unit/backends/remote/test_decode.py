"""Content-Encoding under specview's bound (backends/remote/decode.py): at most one layer, and no
inflate step larger than PIECE_BYTES, whatever the ratio."""

from __future__ import annotations

import zlib

import pytest

from specview.backends.remote.decode import PIECE_BYTES, Damaged, RefusedEncoding, body_encoding, inflated


def _compress(data: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(data) + packer.flush()


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
    body = _compress(b"\0" * 2**30, 31)  # 1 GiB in one chunk: only what is read gets inflated
    pieces = inflated([body], "gzip")
    assert len(next(pieces)) == PIECE_BYTES
    pieces.close()


def test_no_encoding_passes_bytes_through() -> None:
    assert list(inflated([b"ab", b"c"], None)) == [b"ab", b"c"]


def test_a_damaged_body_is_named() -> None:
    with pytest.raises(Damaged, match="cannot inflate"):
        list(inflated([b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + b"\xff" * 8], "gzip"))  # block type 3
