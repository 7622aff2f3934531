"""What a server tells about the requests it runs now, one slot at a time (the watch's "requests" pane).

Only llama-server tells anything per request to a watcher: its /slots lists each parallel slot,
and a busy one its tokens decoded and left; drafted and accepted counts appear per slot only in
builds that put them there (the build this was written against keeps them for /metrics, for the
whole server). vLLM gives a request's speculative counts in the answer to the client that sent
it, never to a watcher; the others give nothing per request. `note` says which, in words
(`requests.<note>`), so the screen never leaves an empty pane unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_SHOWN_SLOTS = 8  # slots the pane lists (busy first; the rest are counted)


@dataclass(frozen=True, slots=True)
class SlotNow:
    """One slot as /slots shows it now (None: the server did not say, or said something that is not a count)."""

    id: int
    busy: bool
    decoded: int | None = None  # tokens generated so far for the request it runs
    remaining: int | None = None  # tokens it may still generate
    prompt: int | None = None  # prompt tokens of the request
    drafted: int | None = None  # where the build tells them per slot
    accepted: int | None = None


@dataclass(frozen=True, slots=True)
class RequestsNow:
    """The slots shown (at most MAX_SHOWN_SLOTS), how many the server has, and what to say about them."""

    slots: tuple[SlotNow, ...] = ()
    total: int = 0
    note: str | None = "none"  # catalog `requests.<note>`; None when the slots tell it all

    @property
    def more(self) -> int:
        return max(0, self.total - len(self.slots))
