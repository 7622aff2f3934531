"""Who may use `specview serve`: the token, the addresses a request may name, the cap on sessions.

Browsers apply no same-origin rule to WebSockets, and a page that rebinds its own name to
127.0.0.1 (DNS rebinding) reaches a loopback server under that name. So a request must name
this server in `Host` (a rebinding page sends its own name), a browser's `Origin` must be
this server's (a WebSocket handshake always carries one), and whatever shows or drives the
app needs the random token printed at start. These are the rules alone; `gate.py` applies
them to requests.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from specview.boundary.text import shown
from specview.kernel.errors import CliError

TOKEN_BYTES = 32  # secrets.token_urlsafe(32): 43 characters, 256 random bits
DEFAULT_PORTS = {"http": 80, "https": 443}
# A loopback server may be named any of these: a rebinding page cannot send them, its Host
# and Origin are its own name.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
_HOST_NAME = re.compile(r"[a-z0-9._-]+|\[[0-9a-f:.]+\]")


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Whether `host` means every address of this machine (0.0.0.0, ::, or empty)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return host == ""


def url_host(host: str) -> str:
    """`host` as a URL writes it: lower case, an IPv6 address in brackets."""
    bare = host.lower().strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def same_secret(presented: str, secret: str) -> bool:
    """Whether `presented` is `secret`, in constant time (how long it takes says nothing of how much matched)."""
    return hmac.compare_digest(presented.encode("utf-8", "surrogatepass"), secret.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class Address:
    """One address browsers reach the server at."""

    scheme: str  # http or https
    host: str  # as `url_host` writes it
    port: int

    @property
    def origin(self) -> str:
        """This address as a browser writes it in `Origin` (the scheme's default port left out)."""
        if DEFAULT_PORTS[self.scheme] == self.port:
            return f"{self.scheme}://{self.host}"
        return f"{self.scheme}://{self.host}:{self.port}"

    @property
    def hosts(self) -> tuple[str, ...]:
        """The `Host` headers that name this address (the scheme's default port may be left out)."""
        with_port = f"{self.host}:{self.port}"
        return (with_port, self.host) if DEFAULT_PORTS[self.scheme] == self.port else (with_port,)


def public_address(url: str) -> Address:
    """`--public-url`: http(s)://HOST[:PORT] with at most a path; anything else is a CliError."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    host = url_host(parts.hostname or "")
    if (parts.scheme not in DEFAULT_PORTS or not _HOST_NAME.fullmatch(host) or port == -1 or parts.username
            or parts.password or parts.query or parts.fragment):
        raise CliError("serveerr.public_url", url=shown(url))
    return Address(parts.scheme, host, port or DEFAULT_PORTS[parts.scheme])


@dataclass(frozen=True, slots=True)
class Access:
    """The secrets of one `specview serve` run, the addresses its requests may name, its session cap."""

    addresses: tuple[Address, ...]
    max_sessions: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(TOKEN_BYTES), repr=False)
    # What the page's cookie carries to /download (textual-serve's page builds that URL itself,
    # without the token); a secret of its own, so a cookie that leaks gives nothing else away.
    download_key: str = field(default_factory=lambda: secrets.token_urlsafe(TOKEN_BYTES), repr=False)

    @classmethod
    def serving(cls, host: str, port: int, public_url: str | None, max_sessions: int) -> Access:
        """The rules for a server bound to `host`:`port` that browsers may reach at `public_url`."""
        addresses: list[Address] = []
        if public_url is not None:
            addresses.append(public_address(public_url))
        if is_wildcard(host):
            if public_url is None:
                raise CliError("serveerr.needs_public_url", host=host or "*")
        else:
            addresses.append(Address("http", url_host(host), port))
        if is_loopback(host):
            addresses += [Address("http", name, port) for name in LOOPBACK_NAMES]
        return cls(tuple(dict.fromkeys(addresses)), max_sessions)

    def host_refusal(self, host: str | None) -> str | None:
        """Why a request with this `Host` header is refused, or None."""
        if host is None:
            return "no Host header"
        if host.lower() not in {name for address in self.addresses for name in address.hosts}:
            return f"Host {shown(host)} is not this server"
        return None

    def origin_refusal(self, origin: str | None, *, required: bool) -> str | None:
        """Why a request with this `Origin` header is refused, or None (browsers leave it out of a page load)."""
        if origin is None:
            return "no Origin header" if required else None
        if origin.lower() not in {address.origin for address in self.addresses}:
            return f"Origin {shown(origin)} is not this server"
        return None

    def token_refusal(self, presented: str | None) -> str | None:
        """Why a request that carries `presented` as its token is refused, or None.

        The reason never quotes what was presented: a mistyped token is most of the real one.
        """
        if presented is None:
            return "no token"
        return None if same_secret(presented, self.token) else "wrong token"
