"""When a server's counters move, said in words: llama-server and SGLang add a request's counts
to /metrics only when it ends (a 2-minute answer is one step at its end), so a window shorter
than the requests shows their counts in bursts; vLLM's move at every engine step."""

from __future__ import annotations

from specview.texts.catalog import Phrase

# ServerKind.counters_update's value (backends/remote/server_kind.py AT_REQUEST_END; not imported:
# the model stays apart from the backends)
AT_REQUEST_END = "request_end"


def cadence_phrase(cadence: str | None) -> Phrase | None:
    """The words for counters that move only when a request ends (None: nothing to say)."""
    return Phrase(f"watch.counters_update.{AT_REQUEST_END}") if cadence == AT_REQUEST_END else None
