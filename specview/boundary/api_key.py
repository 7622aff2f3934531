"""Which API key is sent where: the key the user named, to their server; OPENAI_API_KEY only to OpenAI.

An `OPENAI_API_KEY` in the environment is meant for OpenAI. Sent to every `--url` server, it
would reach whoever runs that server, often over plain http, though the user never chose it. So a
key travels only when the user named it (`--api-key-env NAME`, or the config's `api_key_env` or
`api_key`), or when the server is the provider's own API host over https. The one place it is put
on the wire, the remote connection, asks `ApiKey.for_url`. Every key is registered as a secret
whether it is sent or not: a server may reflect it all the same, and it is masked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from specview.boundary.secrets import add_secret

DEFAULT_KEY_ENV = "OPENAI_API_KEY"  # the provider's variable, and the one a 401 names unless another is
# Where the ambient key is meant to go; anything else (a local server, a proxy, a typo) gets it
# only when named.
PROVIDER_HOSTS = frozenset({"api.openai.com"})


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A key the user has, and whether they named it (never shown, logged or recorded)."""

    value: str = field(repr=False)
    named: bool  # --api-key-env, or the config's api_key_env / api_key

    def __post_init__(self) -> None:
        add_secret(self.value)  # masked wherever a server might echo it, sent or not

    def for_url(self, url: str) -> str | None:
        """The key to send to the server at `url`, or None when it must not go there."""
        return self.value if self.named or is_provider_api(url) else None


def is_provider_api(url: str) -> bool:
    """True for the provider's own API over https (api.openai.com, default port)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return False
    return parts.scheme.lower() == "https" and (parts.hostname or "") in PROVIDER_HOSTS and port in (None, 443)


def resolve_api_key(env_name: str | None, config_key: str | None) -> ApiKey | None:
    """The key the command line and config give: the variable `env_name` names (`--api-key-env`
    or the config's `api_key_env`), else the config's `api_key` (both named), else OPENAI_API_KEY
    (not named: sent only to the provider). None when there is none.

    OPENAI_API_KEY is registered as a secret even when another key is used."""
    ambient = os.environ.get(DEFAULT_KEY_ENV, "").strip()
    add_secret(ambient)
    value = (os.environ.get(env_name, "") if env_name else "").strip() or (config_key or "").strip()
    if value:
        return ApiKey(value, named=True)
    # a variable named but empty sends nothing: never fall back to a key the user did not choose
    return ApiKey(ambient, named=False) if ambient and not env_name else None


def withheld_from(key: ApiKey | None, urls: Iterable[str | None]) -> list[str]:
    """The servers (of `urls`) that the ambient OPENAI_API_KEY is not sent to, in order, once each;
    empty when the user named a key or there is no OPENAI_API_KEY."""
    if key is None or key.named:
        return []
    out: list[str] = []
    for url in urls:
        if url and key.for_url(url) is None and url not in out:
            out.append(url)
    return out
