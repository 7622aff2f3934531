"""Every relative link in README.md and on the docs pages leads somewhere.

`mkdocs build --strict` (`make docs`) refuses a broken link between pages, but README.md is no page of the
site, and the build names no line. Here every Markdown link and image and every HTML `src`/`href` in
README.md and docs/**/*.md (outside code) must name a file of the repository, and a `#anchor` a heading of
the page it points to, the way the site's table of contents spells it; a failure says `file:line: link`.
Drafts in docs/_incoming/ are checked once they are folded into a page.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest

from tests.support.docs_pages import DOCS, ROOT, Page, pages, read

pytestmark = pytest.mark.unit

# The pictures the screenshot tests write into docs/images/ (SVGs of the running app). Until those tests
# have written any of them a page may name them; once one exists, every one must.
EXPECTED_SCREENSHOTS = frozenset({"docs/images/live.svg", "docs/images/compare.svg", "docs/images/fleet.svg",
                                  "docs/images/learn.svg", "docs/images/live-zh.svg"})
MARKDOWN_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']""")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
OUTSIDE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # http:, https:, mailto: …: not a file here


def slug(heading: str) -> str:
    """A heading's anchor as the site's table of contents makes it (Python-Markdown's `toc.slugify` on
    the heading's text: code and links read as their text)."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(doc: Page) -> set[str]:
    """The anchors of a page's headings; a repeated one gets `_1`, `_2`, … as the table of contents does."""
    seen: dict[str, int] = {}
    out = set()
    for _, line in doc.prose_lines():
        if (found := HEADING.match(line)) is None:
            continue
        base = slug(found.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}_{count}")
    return out


@cache
def anchors_of(path: Path) -> frozenset[str]:
    return frozenset(anchors(read(path)))


def links(doc: Page) -> list[tuple[int, str]]:
    """(line, target) of every link and image outside code: Markdown's, also across a line break in the
    text, and raw HTML's."""
    prose = {number: INLINE_CODE.sub("", line) for number, line in doc.prose_lines()}
    text = "\n".join(prose.get(number, "") for number in range(1, len(doc.lines()) + 1))
    found = []
    for pattern in (MARKDOWN_LINK, HTML_LINK):
        for match in pattern.finditer(text):
            found.append((text.count("\n", 0, match.start(1)) + 1, match.group(1)))
    return sorted(found)


def missing_screenshots_allowed() -> frozenset[str]:
    return EXPECTED_SCREENSHOTS if not any((ROOT / name).exists() for name in EXPECTED_SCREENSHOTS) else frozenset()


def broken_links(doc: Page) -> list[str]:
    """`file:line: target (why)` for each link of a page that leads nowhere."""
    out = []
    for line, target in links(doc):
        if OUTSIDE.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        why = None
        if not file_part:  # an anchor of the page itself
            if anchor not in anchors(doc):
                why = f"no heading #{anchor} in {doc.name}"
            if why is not None:
                out.append(f"{doc.where(line)}: {target} ({why})")
            continue
        resolved = (doc.path.parent / file_part).resolve()
        if not resolved.is_relative_to(ROOT):
            why = "outside the repository"
        elif not resolved.exists():
            if resolved.relative_to(ROOT).as_posix() not in missing_screenshots_allowed():
                why = "no such file"
        elif anchor and resolved.suffix == ".md" and anchor not in anchors_of(resolved):
            why = f"no heading #{anchor} in {resolved.relative_to(ROOT).as_posix()}"
        if why is not None:
            out.append(f"{doc.where(line)}: {target} ({why})")
    return out


def test_every_link_in_the_readme_and_the_docs_leads_somewhere() -> None:
    published = [doc for doc in pages() if doc.published]
    assert [line for doc in published for line in broken_links(doc)] == []


def test_the_readme_and_every_page_are_read() -> None:
    """The README's links are checked here (the site's build does not see it), with the pages'."""
    checked = {doc.name: len(links(doc)) for doc in pages() if doc.published}
    assert checked["README.md"] >= 15, "the README links to the docs pages"
    on_site = {path.relative_to(ROOT).as_posix() for path in DOCS.glob("*.md")}
    assert on_site <= set(checked) and len(on_site) >= 17


def test_the_readme_is_a_front_door_to_every_page() -> None:
    """README.md stays short (the site holds the rest) and links to every page of the site."""
    readme = pages()[0]
    assert readme.name == "README.md" and len(readme.lines()) <= 200
    linked = {(ROOT / target.partition("#")[0]).resolve() for _, target in links(readme)}
    unlinked = [path.relative_to(ROOT).as_posix() for path in sorted(DOCS.glob("*.md"))
                if path.resolve() not in linked]
    assert unlinked == []


@pytest.mark.parametrize(("text", "broken"), [
    ("See [the engines](engines.md) and [Dialects](engines.md#dialects).\n", []),
    ("See [nothing](nowhere.md).\n", ["docs/planted.md:1: nowhere.md (no such file)"]),
    ("Intro.\n\nSee [a heading](engines.md#no-such-heading).\n",
     ["docs/planted.md:3: engines.md#no-such-heading (no heading #no-such-heading in docs/engines.md)"]),
    ("A [link whose text\nwraps](gone.md).\n", ["docs/planted.md:2: gone.md (no such file)"]),  # the target's line
    ('<img src="images/none.png" alt="x">\n', ["docs/planted.md:1: images/none.png (no such file)"]),
    ("[up and out](../../etc/passwd)\n", ["docs/planted.md:1: ../../etc/passwd (outside the repository)"]),
    ("```\n[in code](nowhere.md)\n```\nAnd `[inline](nowhere.md)` code; [the web](https://example.com/x.md).\n", []),
    ("# Top\n\n[here](#top) and [not here](#gone)\n",
     ["docs/planted.md:3: #gone (no heading #gone in docs/planted.md)"]),
])
def test_the_rule_on_planted_pages(text: str, broken: list[str]) -> None:
    planted = Page(DOCS / "planted.md", text)  # read as if it were there; nothing is written
    assert broken_links(planted) == broken


@pytest.mark.parametrize(("heading", "anchor"), [
    ("Remote servers (`--url`)", "remote-servers-url"),
    ("AMX CPUs: crashes in llama.cpp's kernels", "amx-cpus-crashes-in-llamacpps-kernels"),
    ("Does speculation pay here? (`specview sweep`)", "does-speculation-pay-here-specview-sweep"),
    ("What each engine's dashboards call them", "what-each-engines-dashboards-call-them"),
])
def test_anchors_are_spelled_as_the_site_spells_them(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor
