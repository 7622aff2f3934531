"""Names of several runs, shortened so that what tells them apart stays (tables, summaries).

Runs against one machine's files or servers share long beginnings: `~/.cache/specview/…`
for models, `127.0.0.1:` for servers. Cutting each name to its first characters left only that
shared part, so two runs looked alike. Where a name is too long, the beginning all the names share is dropped (back
to a separator, so no word is cut, and shown as `…`), and a name still too long loses its
middle, keeping its beginning and its end (a file's name and extension, a server's port).
"""

from __future__ import annotations

from collections.abc import Sequence

ELLIPSIS = "…"
SEPARATORS = "/\\:· _-"


def distinct_names(names: Sequence[str], width: int) -> list[str]:
    """`names`, each at most `width` characters, with the part that tells them apart kept
    (names that fit stay whole)."""
    if all(len(name) <= width for name in names):
        return list(names)
    shared = _shared_start(names) if len(set(names)) > 1 else 0
    return [_middle_cut(ELLIPSIS + name[shared:] if shared else name, width) for name in names]


def _shared_start(names: Sequence[str]) -> int:
    """How many leading characters every name shares, back to just after a separator."""
    # by characters, not path parts: names are paths, server addresses and model ids
    length = next((i for i, chars in enumerate(zip(*names, strict=False)) if len(set(chars)) > 1), min(map(len, names)))
    common = names[0][:length]
    cut = max(common.rfind(sep) for sep in SEPARATORS) + 1
    # never the whole of a name (one name the beginning of another keeps its own)
    return cut if cut > len(ELLIPSIS) and all(len(name) > cut for name in names) else 0


def _middle_cut(name: str, width: int) -> str:
    """`name` in `width` characters: its beginning, `…`, and its end."""
    if len(name) <= width:
        return name
    tail = (width - len(ELLIPSIS)) // 2
    head = width - len(ELLIPSIS) - tail
    return name[:head] + ELLIPSIS + name[len(name) - tail:]
