"""A request's token text, kept within a budget before any dialect reads it.

One server-sent event may carry 8 MiB (boundary/bounds.py) and a request may send hundreds of
events, so text kept whole could reach gigabytes for one request: in the dialects (vLLM's chunks
kept for the exact regrouping, llama-server's text waiting for its counters), the rounds, the
recording and `bench --json`'s "text". Each chunk keeps at most MAX_CHUNK_TEXT characters (far
beyond any token: the view shows a token's first MAX_TOKEN_SHOWN; a long chunk survives whole in
the recording and `--json`) and a request at most MAX_REQUEST_TEXT in all (past it, a chunk keeps
its first character, so it still counts as a token); what was cut is counted and said: a note on
the run (`note.text_cut`), `bench --json`'s "text_truncated". The fields cut are the ones
`dialect.chunk_text` reads, in its order (SGLang's native `/generate` text is not among them).
"""

from __future__ import annotations

from typing import Any

from specview.boundary.bounds import MAX_CHUNK_TEXT, MAX_REQUEST_TEXT
from specview.kernel.backend import Note
from specview.kernel.unmeasured import TEXT_CUT_NOTE


class TextBudget:
    """What one request's chunks may keep of their text; counts what they could not."""

    def __init__(self, per_chunk: int = MAX_CHUNK_TEXT, per_request: int = MAX_REQUEST_TEXT) -> None:
        self.per_chunk = per_chunk
        self.per_request = per_request
        self.kept = 0  # characters kept over the request
        self.dropped = 0  # characters cut
        self.cut = 0  # chunks whose text was cut
        self._room = 0  # what the chunk being clipped may still keep
        self._cutting = False  # whether it lost some

    def clip(self, event: dict[str, Any]) -> None:
        """Cut, in place, the text of one decoded chunk to what the budget leaves."""
        self._room, self._cutting = self.per_chunk, False
        choices = event.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            choice = choices[0]
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._cut(delta, "reasoning_content")
                self._cut(delta, "content")
            else:
                self._cut(choice, "text")
        else:
            self._cut(event, "content")
        self.cut += self._cutting

    def _cut(self, holder: dict[str, Any], key: str) -> None:
        text = holder.get(key)
        if not isinstance(text, str):
            return
        # a chunk with text keeps at least its first character: dialects count a chunk with text as a token
        least = 1 if self._room == self.per_chunk else 0
        most = max(least, min(self._room, self.per_request - self.kept))
        if len(text) > most:
            holder[key] = text[:most]
            self.dropped += len(text) - most
            self._cutting = True
        kept = min(len(text), most)
        self.kept += kept
        self._room -= kept

    def note(self) -> Note | None:
        """What the run says about the text it cut (None: nothing was cut)."""
        if not self.cut:
            return None
        return Note(TEXT_CUT_NOTE, {"characters": str(self.dropped), "chunks": str(self.cut),
                                    "per_chunk": str(self.per_chunk), "per_request": str(self.per_request)})
