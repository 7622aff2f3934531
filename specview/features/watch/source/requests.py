"""Reading what a server tells per request now: llama-server's /slots (see model/requests.py).

/slots is an optional endpoint (absent with --no-slots): asked like /props, None when it does
not answer. More than MAX_SLOTS entries is refused (Invalid, as detection refuses them), and
MAX_SHOWN_SLOTS are kept; every value is
a count in 0 … MAX_COUNTER or not shown (n_remain is -1 for a request without a limit). This
feeds a pane of words, never a number the gauges compute from: n_decoded, which tokens/s counts,
is checked where the scrape reads it.
"""

from __future__ import annotations

from typing import Any

from specview.backends.remote.server_kind import Probe
from specview.boundary.bounds import MAX_COUNTER, MAX_SLOTS, sequence
from specview.features.watch.model.requests import MAX_SHOWN_SLOTS, RequestsNow, SlotNow

DRAFT_KEYS = (("draft_n", "draft_n_accepted"), ("n_draft", "n_draft_accepted"))  # names builds have used


def read_requests(kind: str, conn: Probe) -> RequestsNow:
    """What the server of family `kind` tells per request now."""
    if kind == "vllm":
        return RequestsNow(note="vllm")
    if kind != "llama-server":
        return RequestsNow(note="none")
    slots = conn.probe_json(f"{conn.root}/slots")
    if not isinstance(slots, list):
        return RequestsNow(note="llama_no_slots")
    read = [_slot(i, s) for i, s in enumerate(sequence(slots, "/slots", MAX_SLOTS)) if isinstance(s, dict)]
    shown = sorted(read, key=lambda s: not s.busy)[:MAX_SHOWN_SLOTS]  # busy first, each group in id order
    drafts_told = any(s.drafted is not None for s in read)
    return RequestsNow(tuple(shown), len(slots), None if drafts_told else "llama_no_drafts")


def _count(value: Any) -> int | None:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNTER else None


def _slot(index: int, slot: dict[str, Any]) -> SlotNow:
    nexts = slot.get("next_token")
    first = nexts[0] if isinstance(nexts, list) and nexts and isinstance(nexts[0], dict) else nexts
    first = first if isinstance(first, dict) else {}
    drafted = accepted = None
    for place in (slot, slot.get("timings"), first):
        if not isinstance(place, dict):
            continue
        for d_key, a_key in DRAFT_KEYS:
            if drafted is None and _count(place.get(d_key)) is not None:
                drafted, accepted = _count(place.get(d_key)), _count(place.get(a_key))
    slot_id = _count(slot.get("id"))
    return SlotNow(slot_id if slot_id is not None else index, slot.get("is_processing") is True,
                   _count(first.get("n_decoded")), _count(first.get("n_remain")), _count(slot.get("n_prompt_tokens")),
                   drafted, accepted)
