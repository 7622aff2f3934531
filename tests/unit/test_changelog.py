"""CHANGELOG.md in Keep a Changelog form (https://keepachangelog.com/en/1.1.0/): `## [Unreleased]` first, then
`## [x.y.z] - YYYY-MM-DD` newest first; under each, only the sections Added, Changed, Deprecated, Removed, Fixed,
Security, each once and not empty; a link reference at the bottom for every version; and the version
pyproject.toml declares is released in it or is the one Unreleased leads to. Each problem names its line."""

from __future__ import annotations

import datetime
import itertools
import re
import tomllib
from pathlib import Path

import pytest
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
RELEASE = re.compile(r"## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})")
LINK = re.compile(r"\[(?P<name>[^\]]+)\]: (?P<url>\S+)")


def problems(text: str, version: str) -> list[str]:
    """What keeps `text` from being a Keep a Changelog file that knows `version`: one line each, with its line."""
    found: list[str] = []
    lines = text.splitlines()
    if not lines or lines[0] != "# Changelog":
        found.append("line 1: the title is '# Changelog'")
    headings: list[tuple[int, str]] = []  # (line, Unreleased or a version)
    released: list[tuple[int, Version, datetime.date]] = []
    links: dict[str, int] = {}
    sections: set[str] = set()
    section_open: tuple[int, str] | None = None  # a section with no entry yet
    for number, line in enumerate(lines, 1):
        if line.startswith("## "):
            if section_open is not None:
                found.append(f"line {section_open[0]}: section {section_open[1]} is empty")
            section_open, sections = None, set()
            release = RELEASE.fullmatch(line)
            if line == "## [Unreleased]":
                if headings:
                    found.append(f"line {number}: [Unreleased] comes first")
                headings.append((number, "Unreleased"))
            elif release is None:
                found.append(f"line {number}: a version heading is '## [x.y.z] - YYYY-MM-DD' or '## [Unreleased]'")
            else:
                headings.append((number, release["version"]))
                try:
                    released.append((number, Version(release["version"]),
                                     datetime.date.fromisoformat(release["date"])))
                except (InvalidVersion, ValueError) as exc:
                    found.append(f"line {number}: {exc}")
        elif line.startswith("### "):
            kind = line[4:]
            if not headings:
                found.append(f"line {number}: section {kind} is under no version")
            elif kind not in KINDS:
                found.append(f"line {number}: section {kind!r} is none of {', '.join(KINDS)}")
            elif kind in sections:
                found.append(f"line {number}: section {kind} twice under one version")
            if section_open is not None:
                found.append(f"line {section_open[0]}: section {section_open[1]} is empty")
            sections.add(kind)
            section_open = (number, kind)
        elif line.startswith("#") and number > 1:
            found.append(f"line {number}: only '## ' versions and '### ' sections are headings here")
        elif (link := LINK.fullmatch(line)) is not None:
            links[link["name"]] = number
        elif line.startswith("- "):
            if headings and not sections:
                found.append(f"line {number}: an entry under a version but in no section")
            section_open = None
    if section_open is not None:
        found.append(f"line {section_open[0]}: section {section_open[1]} is empty")
    for earlier, later in itertools.pairwise(released):
        if not (earlier[1] > later[1] and earlier[2] >= later[2]):
            found.append(f"line {later[0]}: {later[1]} is not older than the version above it (line {earlier[0]})")
    found += [f"line {number}: [{name}] has no link reference at the bottom" for number, name in headings
              if name not in links]
    found += [f"line {number}: link reference [{name}] names no version heading" for name, number in links.items()
              if re.fullmatch(r"Unreleased|\d[^\]]*", name) and name not in {n for _, n in headings}]
    if version not in {name for _, name in headings}:
        newest = max((v for _, v, _ in released), default=None)
        if not any(name == "Unreleased" for _, name in headings):
            found.append(f"pyproject.toml's version {version} is no heading, and there is no [Unreleased]")
        elif newest is not None and Version(version) <= newest:
            found.append(f"pyproject.toml's version {version} is no heading and not newer than {newest}")
    return found


def test_the_changelog_keeps_the_form_and_knows_the_version() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert problems((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), version) == []


GOOD = """# Changelog

## [Unreleased]

### Added

- a thing

## [1.1.0] - 2026-12-01

### Fixed

- a bug

## [1.0.0] - 2026-11-01

### Security

- a hole

[Unreleased]: https://example.org/compare/v1.1.0...HEAD
[1.1.0]: https://example.org/compare/v1.0.0...v1.1.0
[1.0.0]: https://example.org/releases/v1.0.0
"""


def test_a_well_formed_changelog_passes() -> None:
    assert problems(GOOD, "1.2.0") == [] and problems(GOOD, "1.1.0") == []


@pytest.mark.parametrize(("change", "said"), [
    (("## [1.1.0] - 2026-12-01", "## [1.1.0]"), "line 9: a version heading is"),
    (("## [1.1.0] - 2026-12-01", "## [1.1.0] - 2026-13-01"), "line 9: month must be in 1..12"),
    (("### Fixed", "### Bug fixes"), "line 11: section 'Bug fixes' is none of"),
    (("### Fixed\n\n- a bug", "### Fixed\n\n- a bug\n\n### Fixed\n\n- another"), "line 15: section Fixed twice"),
    (("### Added\n\n- a thing", "### Added\n"), "line 5: section Added is empty"),
    (("### Added\n\n- a thing", "- Added: a thing"), "line 5: an entry under a version but in no section"),
    (("[1.0.0]: https://example.org/releases/v1.0.0\n", ""), "[1.0.0] has no link reference at the bottom"),
    (("## [1.0.0] - 2026-11-01", "## [1.2.0] - 2026-11-01"), "1.2.0 is not older than the version above"),
    (("## [Unreleased]\n\n### Added\n\n- a thing\n\n", ""), "version 1.2.0 is no heading, and there is no"),
])
def test_each_break_of_the_form_is_named_with_its_line(change: tuple[str, str], said: str) -> None:
    broken = GOOD.replace(*change)
    assert broken != GOOD
    assert any(said in problem for problem in problems(broken, "1.2.0")), problems(broken, "1.2.0")


def test_a_version_older_than_the_last_release_must_be_a_heading() -> None:
    assert problems(GOOD, "1.0.5") == ["pyproject.toml's version 1.0.5 is no heading and not newer than 1.1.0"]
