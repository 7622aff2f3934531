"""The watch's requests pane in words: each slot the server shows, and what it does not tell."""

from __future__ import annotations

from specview.boundary.text import number
from specview.features.watch.model.requests import RequestsNow
from specview.texts.catalog import fill, text


def requests_lines(now: RequestsNow, lang: str) -> list[str]:
    """The pane's heading, one line per slot shown (busy first), how many more, and the note."""
    lines = [text("watch.requests.title", lang)]
    for slot in now.slots:
        if not slot.busy:
            lines.append(fill("watch.requests.idle", lang, id=slot.id))
            continue
        line = fill("watch.requests.slot", lang, id=slot.id, decoded=number(slot.decoded, "d"),
                    remaining=number(slot.remaining, "d"), prompt=number(slot.prompt, "d"))
        if slot.drafted is not None:
            line += fill("watch.requests.drafts", lang, drafted=slot.drafted, accepted=number(slot.accepted, "d"))
        lines.append(line)
    if now.more:
        lines.append(fill("watch.requests.more", lang, n=now.more))
    if now.note is not None:
        lines.append(text(f"watch.requests.{now.note}", lang))
    return lines
