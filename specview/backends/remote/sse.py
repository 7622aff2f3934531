"""Server-sent events, read with a bound: no line or event may grow past `max_bytes`.

httpx-sse reads a line into memory however long it is, so a server that never sends a
newline could fill the machine. This reader splits the byte stream itself (on CRLF, LF or
CR, as the SSE specification says), keeps only `data` fields and stops with EventTooLarge
as soon as a line or an event passes the bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from specview.texts.catalog import Phrase

_EOL = re.compile(rb"[\r\n]")


class EventTooLarge(ValueError):
    """A line or an event longer than the bound."""


def iter_event_data(chunks: Iterable[bytes], max_bytes: int) -> Iterator[str]:
    """The `data` of each event (its data lines joined by newlines), decoded as UTF-8."""
    buffer = bytearray()
    data: list[bytes] = []
    size = 0
    scanned = 0  # the buffer before here holds no line end: a long line is searched once, not per chunk
    for chunk in chunks:
        buffer += chunk
        start = 0
        while True:
            match = _EOL.search(buffer, max(start, scanned))
            if match is None:
                scanned = len(buffer)
                break
            end = match.start()
            after = end + 1
            if buffer[end] == 0x0D:  # CR: a CRLF pair counts once; wait when the LF may still come
                if after == len(buffer):
                    scanned = end
                    break
                if buffer[after] == 0x0A:
                    after += 1
            line = bytes(buffer[start:end])
            start = after
            if not line:
                if data:
                    yield b"\n".join(data).decode("utf-8", errors="replace")
                data, size = [], 0
                continue
            size = _field(line, data, size, max_bytes)
        del buffer[:start]
        scanned -= start
        if len(buffer) > max_bytes:
            raise EventTooLarge(Phrase("backenderr.sse.line_too_long", size=_mib(max_bytes)))
    if buffer.rstrip(b"\r"):  # a last line without its newline
        _field(bytes(buffer.rstrip(b"\r")), data, size, max_bytes)
    if data:  # the stream ended without the blank line after its last event
        yield b"\n".join(data).decode("utf-8", errors="replace")


def _field(line: bytes, data: list[bytes], size: int, max_bytes: int) -> int:
    """Keep a `data:` line's value in `data`; the event's size so far."""
    name, _, value = line.partition(b":")
    if name != b"data":
        return size  # comments (":…"), event, id, retry: nothing specview reads
    value = value[1:] if value.startswith(b" ") else value
    size += len(value) + 1
    if size > max_bytes:
        raise EventTooLarge(Phrase("backenderr.sse.event_too_large", size=_mib(max_bytes)))
    data.append(value)
    return size


def _mib(size: int) -> Phrase:
    if size >= 2**20:
        return Phrase("backenderr.sse.mib", mib=size // 2**20)
    return Phrase("backenderr.sse.bytes", bytes=size)
