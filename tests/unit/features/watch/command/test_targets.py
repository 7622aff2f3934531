"""The targets of a fleet watch: the file's lines, comments, and each bad line named by number."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.features.watch.command.targets import MAX_URL_CHARS, TargetsError, all_targets, parse_targets


def test_one_url_per_line_with_comments_and_blank_lines() -> None:
    data = b"# the fleet\nhttp://127.0.0.1:8080\n\n  http://127.0.0.1:8081/v1   # the second\n#http://x:1\n"
    assert parse_targets(data, "f") == ["http://127.0.0.1:8080", "http://127.0.0.1:8081/v1"]


@pytest.mark.parametrize(("data", "line", "why"), [
    (b"http://127.0.0.1:1\nftp://127.0.0.1:2\n", 2, "http:// or https://"),
    (b"http://127.0.0.1:1\n\nhttp://a:1 http://b:2\n", 3, "one URL per line"),
    (b"http://127.0.0.1:1\nhttp://127.0.0.1:1/v1\n", 2, "repeats the target of line 1"),
    (b"\xff\xfe\n", 1, "not UTF-8"),
    (b"# ok\n" + b"h" * (MAX_URL_CHARS + 1) + b"\n", 2, f"at most {MAX_URL_CHARS}"),
])
def test_a_bad_line_is_named_by_its_number(data: bytes, line: int, why: str) -> None:
    with pytest.raises(TargetsError) as caught:
        parse_targets(data, "--targets fleet.txt")
    message = str(caught.value)
    assert message.startswith("--targets fleet.txt") and f"line {line}" in message and why in message


def test_a_file_with_no_url_says_so() -> None:
    with pytest.raises(TargetsError, match="lists no server URL"):
        parse_targets(b"# nothing yet\n\n", "f")


def test_urls_and_the_file_together_and_the_same_server_twice(tmp_path: Path) -> None:
    path = tmp_path / "fleet.txt"
    path.write_text("http://127.0.0.1:2\n")
    assert all_targets(["http://127.0.0.1:1"], path) == ["http://127.0.0.1:1", "http://127.0.0.1:2"]
    with pytest.raises(TargetsError, match="given twice"):
        all_targets(["http://127.0.0.1:1", "http://127.0.0.1:1/"], None)
    with pytest.raises(TargetsError, match="repeats --url"):
        all_targets(["http://127.0.0.1:2/v1"], path)
