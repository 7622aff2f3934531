"""Secrets this process knows (the API key, URL credentials) and the one function that masks them.

Whoever learns a secret registers it (`add_secret`): the CLI when it resolves the API key, the
remote connection for the key and for what its URL carried (`user:password@`, query values).
`mask` then replaces every occurrence by `***` in any text, and `sanitize` (core/text.py) masks
before it truncates, so a cut can never leave half a key on screen. A server that reflects the
key back, in an error, a model id or the streamed tokens, is masked the same way; tokens that
split a key across rounds are handled by `RoundMasker` (core/stream_mask.py).
"""

from __future__ import annotations

import re
import threading
from urllib.parse import parse_qsl, urlsplit, urlunsplit

MASK = "***"
# Shorter values are not masked: masking every "ab" in a stream would garble it, and a
# secret that short is no secret. (They are still never printed: URLs are shown without
# their credentials, and the key is never put in a message.)
MIN_SECRET = 4

_lock = threading.Lock()
_secrets: frozenset[str] = frozenset()
_pattern: re.Pattern[str] | None = None


def add_secret(value: str | None) -> None:
    """Mask `value` (and its surrounding whitespace trimmed) from now on."""
    global _secrets, _pattern
    if not value:
        return
    values = {value, value.strip()}
    with _lock:
        grown = _secrets | {v for v in values if len(v) >= MIN_SECRET}
        if grown == _secrets:
            return
        _secrets = frozenset(grown)
        # Longest first, so a secret that contains another is masked whole.
        ordered = sorted(_secrets, key=len, reverse=True)
        _pattern = re.compile("|".join(re.escape(s) for s in ordered))


def known_secrets() -> frozenset[str]:
    """Every registered secret (for the stream masker and the recorder's last guard)."""
    return _secrets


def forget_secrets() -> None:
    """Drop every registered secret (tests start each case clean)."""
    global _secrets, _pattern
    with _lock:
        _secrets = frozenset()
        _pattern = None


def mask(text: str) -> str:
    """`text` with every registered secret replaced by `***`."""
    pattern = _pattern
    if pattern is None or not text:
        return text
    return pattern.sub(MASK, text)


_SECRET_PARAM = re.compile(r"key|token|secret|sig|auth|pass|cred|session|code", re.IGNORECASE)


def url_credentials(url: str) -> list[str]:
    """What a URL carries that must never be shown: the password, and query values that look
    like credentials (a secret-sounding name, or 12 characters or more). The user name is not
    masked everywhere (it is often a plain word); it is never shown, like the whole user info."""
    try:
        parts = urlsplit(url)
        found = [parts.password or ""]
    except ValueError:
        return []
    for key, value in parse_qsl(parts.query, keep_blank_values=False):
        if _SECRET_PARAM.search(key) or len(value) >= 12:
            found.append(value)
    return [value for value in found if value]


def add_url_secrets(url: str | None) -> None:
    """Register the credentials `url` carries (see `url_credentials`)."""
    for value in url_credentials(url or ""):
        add_secret(value)


def public_url(url: str | None) -> str | None:
    """`url` without user info, query or fragment (where tokens sometimes hide), for messages,
    the status line and recordings. A URL that cannot be parsed is shown as `<invalid URL>`."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "<invalid URL>"
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
