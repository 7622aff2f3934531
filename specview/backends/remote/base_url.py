"""A server URL taken apart (root to show, /v1 to ask, credentials that only travel): the remote
client's and the fleet's targets' one parser."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from specview.boundary.secrets import add_url_secrets
from specview.boundary.text import shown
from specview.kernel.errors import BackendError


@dataclass(frozen=True, slots=True)
class BaseUrl:
    """A server URL taken apart: what to show, and the credentials that only travel."""

    root: str  # scheme://host:port[/prefix], no credentials: safe to show
    api: str  # root + /v1
    auth: tuple[str, str] | None  # user:password@ from the URL
    params: tuple[tuple[str, str], ...]  # the URL's query, sent with every request


def parse_base_url(url: str) -> BaseUrl:
    """`http://h:p/v1` and `http://h:p` both give root `http://h:p`, api `…/v1`.

    A URL that cannot be used is a BackendError that shows it without its credentials.
    """
    add_url_secrets(url)
    text = url.strip()
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise BackendError("backenderr.client.bad_url", reason=str(exc),
                           url=shown(_without_credentials(text))) from None
    if parts.scheme not in ("http", "https"):
        raise BackendError("backenderr.client.bad_scheme", url=shown(_without_credentials(text)))
    if not host:
        raise BackendError("backenderr.client.no_host", url=shown(_without_credentials(text)))
    shown_host = f"[{host}]" if ":" in host else host
    netloc = shown_host if port is None else f"{shown_host}:{port}"
    path = parts.path.rstrip("/")
    root = urlunsplit((parts.scheme, netloc, path, "", ""))
    if path.endswith("/v1"):
        root, api = root[: -len("/v1")], root
    else:
        api = root + "/v1"
    auth = (parts.username or "", parts.password or "") if parts.username or parts.password else None
    return BaseUrl(root, api, auth, tuple(parse_qsl(parts.query, keep_blank_values=True)))


def _without_credentials(text: str) -> str:
    """Best effort for a URL that may not parse: drop everything between '//' and '@', and the query."""
    head, sep, rest = text.partition("//")
    if sep and "@" in rest.split("/", 1)[0]:
        rest = rest.split("@", 1)[1]
    return (head + sep + rest).split("?", 1)[0]
