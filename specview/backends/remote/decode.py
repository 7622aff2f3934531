"""Content-Encoding under specview's own bound: at most one layer, inflated a piece at a time.

httpx decodes a network chunk through every encoding a server lists before the caller sees a
byte, so a 6.8 kB answer marked `Content-Encoding: gzip, gzip` becomes gigabytes in one call.
specview asks for none (`Accept-Encoding: identity`) and reads the raw bytes itself: a server
that compresses anyway may use one layer of gzip or deflate, which is inflated with zlib's
`max_length` so that no step yields more than `PIECE_BYTES` (the caller's bound on a body or
an event then holds, whatever the ratio). Stacked layers, and encodings zlib does not speak
(br, zstd: their decoders take no output limit), are refused with `RefusedEncoding` naming the header.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

from specview.boundary.text import sanitize
from specview.texts.catalog import Phrase

PIECE_BYTES = 64 * 2**10  # the most one inflate step may produce
_GZIP = ("gzip", "x-gzip")
_DEFLATE = "deflate"
_NONE = ("", "identity")


class RefusedEncoding(ValueError):
    """An encoding specview will not decode: `what` names it (from the header), `why` says why."""

    def __init__(self, what: Phrase, why: Phrase) -> None:
        super().__init__(Phrase("backenderr.decode.refused", what=what, why=why))
        self.what, self.why = what, why


class Damaged(ValueError):
    """A compressed body zlib cannot inflate."""


def body_encoding(values: list[str]) -> str | None:
    """The one encoding to undo ("gzip" or "deflate"), None for none; `values` are the
    Content-Encoding header's comma-separated items, as the server sent them."""
    layers = [v.strip().lower() for v in values if v.strip().lower() not in _NONE]
    listed = sanitize(", ".join(v.strip() for v in values), 80, one_line=True)
    if len(layers) > 1:
        raise RefusedEncoding(Phrase("backenderr.decode.stacked", listed=listed),
                              Phrase("backenderr.decode.stacked_why"))
    if not layers:
        return None
    if layers[0] in _GZIP:
        return "gzip"
    if layers[0] == _DEFLATE:
        return _DEFLATE
    raise RefusedEncoding(Phrase("backenderr.decode.unknown", listed=listed), Phrase("backenderr.decode.unknown_why"))


def inflated(raw: Iterable[bytes], encoding: str | None) -> Iterator[bytes]:
    """`raw` with `encoding` undone, in pieces of at most PIECE_BYTES; Damaged when zlib fails."""
    if encoding is None:
        yield from raw
        return
    inflater = _Inflater(encoding)
    for chunk in raw:
        yield from inflater.feed(chunk)


class _Inflater:
    """One zlib stream, fed chunk by chunk; what follows its end is ignored (as httpx does)."""

    def __init__(self, encoding: str) -> None:
        self._raw_fallback = encoding == _DEFLATE  # "deflate" is zlib-wrapped, or raw from some servers
        self._started = False
        self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS if encoding != _DEFLATE else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data and not self._zlib.eof:
            try:
                out = self._zlib.decompress(data, PIECE_BYTES)
            except zlib.error as exc:
                if self._raw_fallback and not self._started:
                    self._raw_fallback = False
                    self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise Damaged(Phrase("backenderr.decode.damaged", reason=str(exc))) from None
            self._started = True
            if out:
                yield out
            data = self._zlib.unconsumed_tail
