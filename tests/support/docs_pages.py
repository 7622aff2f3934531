"""The documentation as the tests read it: README.md and every Markdown page under docs/.

README.md is the front door and docs/ the site `make docs` builds (mkdocs.yml); site/, the built site, is
output, not documentation. docs/_incoming/ holds drafts other changes leave for a page: their commands and
words are checked like the pages', their links only once they are folded into a page (`published`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
INCOMING = DOCS / "_incoming"
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Page:
    """One Markdown file: where it is and what it says."""

    path: Path
    text: str

    @property
    def name(self) -> str:
        """Its path from the repository root, as a failure names it (`docs/engines.md`)."""
        return self.path.relative_to(ROOT).as_posix()

    @property
    def published(self) -> bool:
        """Part of the README or the site (not a draft waiting in docs/_incoming/)."""
        return not self.path.is_relative_to(INCOMING)

    def where(self, line: int) -> str:
        return f"{self.name}:{line}"

    def lines(self) -> list[str]:
        return self.text.splitlines()

    def code_lines(self) -> Iterator[tuple[int, str]]:
        """(line number, text) of every line inside a fenced code block."""
        inside = False
        for number, line in enumerate(self.lines(), 1):
            if FENCE.match(line):
                inside = not inside
            elif inside:
                yield number, line

    def prose_lines(self) -> Iterator[tuple[int, str]]:
        """(line number, text) of every line outside fenced code blocks (fence lines left out too)."""
        inside = False
        for number, line in enumerate(self.lines(), 1):
            if FENCE.match(line):
                inside = not inside
            elif not inside:
                yield number, line


def read(path: Path) -> Page:
    return Page(path, path.read_text(encoding="utf-8"))


def pages() -> list[Page]:
    """README.md, then every docs/**/*.md in a fixed order."""
    return [read(ROOT / "README.md"), *(read(path) for path in sorted(DOCS.rglob("*.md")))]


def page(name: str) -> Page:
    """One page by its path from the root (`docs/learn.md`)."""
    return read(ROOT / name)
