"""`specview serve`'s rules: the addresses a request may name, the token, the session cap's setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.catalog.config import DEFAULT_SERVE_SESSIONS, load_config
from specview.cli.parser import build_parser
from specview.features.serve.access import Access, public_address, same_secret
from specview.features.serve.command import max_sessions
from specview.kernel.errors import CliError


def test_a_loopback_server_answers_to_its_loopback_names_only() -> None:
    access = Access.serving("127.0.0.1", 8000, None, 2)
    for host in ("127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000", "[::1]:8000"):
        assert access.host_refusal(host) is None, host
    for host in ("evil.example:8000", "127.0.0.1:8001", "127.0.0.1", "localhost.evil:8000", ""):
        assert access.host_refusal(host) == f"Host {host!r} is not this server"
    assert access.host_refusal(None) == "no Host header"


def test_origins_must_be_the_servers_and_a_socket_needs_one() -> None:
    access = Access.serving("127.0.0.1", 8000, None, 2)
    assert access.origin_refusal("http://127.0.0.1:8000", required=True) is None
    assert access.origin_refusal("http://localhost:8000", required=True) is None
    for origin in ("http://evil.example", "http://127.0.0.1:8001", "https://127.0.0.1:8000", "null"):
        assert access.origin_refusal(origin, required=False) == f"Origin {origin!r} is not this server"
    assert access.origin_refusal(None, required=False) is None  # a page load carries none
    assert access.origin_refusal(None, required=True) == "no Origin header"


def test_the_public_url_is_an_address_too() -> None:
    access = Access.serving("0.0.0.0", 8000, "https://Specview.Example/", 2)
    assert access.host_refusal("specview.example") is None
    assert access.host_refusal("specview.example:443") is None
    assert access.origin_refusal("https://specview.example", required=True) is None
    assert access.host_refusal("0.0.0.0:8000") is not None  # no browser names a wildcard
    assert access.host_refusal("127.0.0.1:8000") is not None  # not served on loopback alone
    assert public_address("http://[::1]:9000").origin == "http://[::1]:9000"


def test_every_address_needs_a_public_url() -> None:
    for host in ("0.0.0.0", "::", ""):
        with pytest.raises(CliError, match="needs --public-url"):
            Access.serving(host, 8000, None, 2)


@pytest.mark.parametrize("url", ["ftp://x.example", "http://", "x.example:80", "http://u:p@x.example",
                                 "http://x.example/?a=1", "http://x.example:99999", "http://x y.example",
                                 "http://x.example#top"])
def test_a_bad_public_url_is_one_error(url: str) -> None:
    with pytest.raises(CliError, match="--public-url must be"):
        public_address(url)


def test_tokens_are_random_compared_whole_and_never_quoted() -> None:
    one, two = Access.serving("127.0.0.1", 8000, None, 2), Access.serving("127.0.0.1", 8000, None, 2)
    assert one.token != two.token and len(one.token) >= 43 and one.download_key != one.token
    assert one.token not in repr(one) and one.download_key not in repr(one)
    assert one.token_refusal(one.token) is None
    assert one.token_refusal(None) == "no token"
    for near in (one.token[:-1], one.token + "x", "", "é" * 43, "\udcff"):
        assert one.token_refusal(near) == "wrong token"
    assert same_secret("abc", "abc") and not same_secret("abd", "abc")


def test_max_sessions_from_the_flag_the_config_or_the_default(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("SPECVIEW_CONFIG", str(path))
    assert max_sessions(None) == DEFAULT_SERVE_SESSIONS == 2
    path.write_text("serve_max_sessions = 5\n")
    assert max_sessions(None) == 5
    assert max_sessions(3) == 3
    for bad in ("0", "65", "2.5", "true", '"4"'):
        path.write_text(f"serve_max_sessions = {bad}\n")
        config = load_config(path)
        assert config.serve_max_sessions is None and "serve_max_sessions" in str(config.problems[0])
        assert max_sessions(None) == DEFAULT_SERVE_SESSIONS
    assert build_parser().parse_args(["serve", "--max-sessions", "4"]).max_sessions == 4
    for bad in ("0", "65", "x"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--max-sessions", bad])
