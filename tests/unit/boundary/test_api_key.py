"""Which key is sent where (boundary/api_key.py), and the one notice when OPENAI_API_KEY stays home."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from specview.boundary.api_key import ApiKey, is_provider_api, resolve_api_key, withheld_from
from specview.boundary.secrets import forget_secrets, known_secrets, mask
from specview.cli.runspec_args import withheld_key_notice

AMBIENT = "sk-ambient-0123456789"
NAMED = "sk-named-9876543210"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    forget_secrets()
    for name in ("OPENAI_API_KEY", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)
    yield
    forget_secrets()


@pytest.mark.parametrize(("url", "sent"), [
    ("https://api.openai.com/v1", True),
    ("https://API.OpenAI.com", True),
    ("https://api.openai.com:443/v1", True),
    ("http://api.openai.com/v1", False),  # plain http: anyone on the way reads it
    ("https://api.openai.com:8443/v1", False),
    ("https://api.openai.com.evil.example/v1", False),
    ("https://api.openai.com@evil.example/v1", False),  # user info, not the host
    ("https://proxy.example/api.openai.com/v1", False),
    ("http://127.0.0.1:8080/v1", False),
    ("https://[::1]:8080", False),
    ("not a url", False),
])
def test_the_ambient_key_goes_only_to_the_providers_own_api_over_https(url: str, sent: bool) -> None:
    assert is_provider_api(url) is sent
    assert ApiKey(AMBIENT, named=False).for_url(url) == (AMBIENT if sent else None)


def test_a_named_key_goes_wherever_the_user_sends_it() -> None:
    key = ApiKey(NAMED, named=True)
    assert key.for_url("http://127.0.0.1:8080/v1") == NAMED
    assert key.for_url("https://api.openai.com/v1") == NAMED
    assert NAMED not in repr(key)


def test_only_a_key_the_user_named_comes_before_the_ambient_one(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_api_key(None, None) is None
    monkeypatch.setenv("OPENAI_API_KEY", AMBIENT)
    assert resolve_api_key(None, None) == ApiKey(AMBIENT, named=False)
    assert resolve_api_key("OPENAI_API_KEY", None) == ApiKey(AMBIENT, named=True)  # named: sent
    assert resolve_api_key(None, NAMED) == ApiKey(NAMED, named=True)  # the config's api_key
    monkeypatch.setenv("MY_KEY", f"  {NAMED}\n")
    assert resolve_api_key("MY_KEY", "sk-config-key") == ApiKey(NAMED, named=True)
    # a variable named but empty sends nothing, not the key the user did not choose
    assert resolve_api_key("UNSET_VARIABLE", None) is None
    assert resolve_api_key("UNSET_VARIABLE", "sk-config-key") == ApiKey("sk-config-key", named=True)


def test_every_key_is_masked_whether_it_is_sent_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", AMBIENT)
    monkeypatch.setenv("MY_KEY", NAMED)
    resolve_api_key("MY_KEY", None)
    assert {AMBIENT, NAMED} <= known_secrets()
    assert mask(f"echo {AMBIENT} and {NAMED}") == "echo *** and ***"


def test_the_notice_names_each_server_once_without_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    ambient = ApiKey(AMBIENT, named=False)
    urls = ["http://u:pw@127.0.0.1:8080/v1?token=abc", "http://u:pw@127.0.0.1:8080/v1?token=abc",
            "https://api.openai.com/v1", None]
    assert withheld_from(ambient, urls) == [urls[0]]
    notice = withheld_key_notice(ambient, urls, "en")
    assert notice is not None
    assert notice.startswith("OPENAI_API_KEY is set but not sent to http://127.0.0.1:8080/v1:")
    assert notice.endswith("To send it: --api-key-env OPENAI_API_KEY")
    assert "pw" not in notice and "abc" not in notice and notice.count("127.0.0.1") == 1
    zh = withheld_key_notice(ambient, urls, "zh")
    assert zh is not None and "不会发送" in zh and "--api-key-env OPENAI_API_KEY" in zh
    # nothing to say: the key was named, there is none, or it goes where it belongs
    assert withheld_key_notice(ApiKey(NAMED, named=True), urls, "en") is None
    assert withheld_key_notice(None, urls, "en") is None
    assert withheld_key_notice(ambient, ["https://api.openai.com/v1"], "en") is None
