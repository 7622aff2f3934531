"""Screen 4 · rolling back the KV cache after a round, slot by slot.

specview's own loop keeps `committed[:-1]` in the target's cache; the last committed token is
pending and leads the verify batch [pending, d1 … dγ], whose K/V are written speculatively.
After a verdicts with a accepted drafts, llama_memory_seq_rm(mem, 0, n + a + 1, −1) removes
everything after the last accepted draft; the corrected or bonus token becomes the next pending
one, and its K/V are written by the next forward.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specview.features.learn.explain.rounds import label, round_drafts, round_final
from specview.kernel.events import Round

PHASES = ("start", "draft", "write", "verdict", "rollback", "commit")


def _slot(pos: int, text: str, state: str) -> dict[str, Any]:
    return {"pos": pos, "label": text, "state": state}


def rollback_numbers(
    n_cached: int, context: Sequence[str], pending: str, drafts: Sequence[str], accepted: int, final: str,
    final_status: str,
) -> dict[str, Any]:
    """Every phase of one round as slots (position, label, state), with the cache length and seq_rm call."""
    gamma = len(drafts)
    if not 0 <= accepted <= gamma:
        raise ValueError(f"accepted must be in [0, {gamma}], got {accepted}")
    if len(context) > n_cached:
        raise ValueError("more context labels than cached tokens")
    first_ctx = n_cached - len(context)
    ctx = [_slot(first_ctx + i, text, "cached") for i, text in enumerate(context)]
    n = n_cached
    after = n + gamma + 1  # the slot after the last draft

    def batch(pending_state: str, draft_state: Any, tail: tuple[str, str] = ("", "free")) -> list[dict[str, Any]]:
        slots = [_slot(n, pending, pending_state)]
        for j, d in enumerate(drafts):  # a free slot shows no token: nothing is drafted into it yet
            state = draft_state(j)
            slots.append(_slot(n + 1 + j, "" if state == "free" else d, state))
        return [*ctx, *slots, _slot(after, *tail)]

    def verdict(j: int) -> str:
        return "accepted" if j < accepted else "rejected" if j == accepted else "unverified"

    keep = n + accepted + 1
    steps = [
        {"phase": "start", "slots": batch("pending", lambda j: "free"), "cache_len": n, "seq_rm": None},
        {"phase": "draft", "slots": batch("pending", lambda j: "proposed"), "cache_len": n, "seq_rm": None},
        {"phase": "write", "slots": batch("written", lambda j: "written"), "cache_len": n + gamma + 1,
         "seq_rm": None},
        {"phase": "verdict", "slots": batch("cached", verdict), "cache_len": n + gamma + 1, "seq_rm": None},
        {"phase": "rollback", "slots": batch("cached", lambda j: "accepted" if j < accepted else "removed"),
         "cache_len": keep, "seq_rm": [keep, -1] if keep < n + gamma + 1 else None},
    ]
    commit = [_slot(n, pending, "cached")]
    for j, d in enumerate(drafts):
        commit.append(_slot(n + 1 + j, d, "cached") if j < accepted else _slot(n + 1 + j, "", "free"))
    commit = [*ctx, *commit, _slot(after, "", "free")]
    commit[len(ctx) + 1 + accepted] = _slot(keep, final, "next")
    steps.append({"phase": "commit", "slots": commit, "cache_len": keep, "seq_rm": None})
    return {
        "n_cached": n_cached,
        "gamma": gamma,
        "accepted": accepted,
        "final": final,
        "final_status": final_status,
        "emitted": accepted + 1,
        "removed": gamma - accepted,
        "steps": steps,
    }


def round_rollback(before: Sequence[str], rnd: Round, shown: int = 3) -> dict[str, Any]:
    """`rollback_numbers` for a real round: `before` = labels of every token committed before it."""
    drafts = round_drafts(rnd)
    final = round_final(rnd)
    pending = before[-1] if before else "∅"
    context = list(before[-shown - 1 : -1]) if before else []
    n_cached = max(len(before) - 1, 0)
    accepted = sum(1 for d in drafts if d.verdict == "accepted")
    return rollback_numbers(n_cached, context, pending, [d.text for d in drafts], accepted, label(final.text),
                            final.status.value)
