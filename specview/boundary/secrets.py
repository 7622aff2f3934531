"""Secrets this process knows (the API key, URL credentials) and the one function that masks them.

Whoever learns a secret registers it (`add_secret`): the CLI when it resolves the API key, the
remote connection for the key and for what its URL carried (`user:password@`, query values).
`mask` then replaces every occurrence by `***` in any text, and `sanitize` (boundary/text.py) masks
before it truncates, so a cut can never leave half a key on screen. A server that reflects the
key back, in an error, a model id or the streamed tokens, is masked the same way; tokens that
split a key across rounds are handled by `RoundMasker` (boundary/stream_mask.py). An occurrence is
found as a reader would make it out (boundary/lookalike.py): in any letter case, in fullwidth or
other compatibility forms, with spaces, combining marks or invisible characters (zero-width,
joiners, soft hyphens, variation selectors, controls: boundary/invisible.py) anywhere between its
characters, since the screen or a shared report would show such a copy as the key in disguise;
the whole original span is masked, the marks on its last character included.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from specview.boundary.invisible import without_invisible
from specview.boundary.lookalike import folded, folded_with_origins, is_mark

MASK = "***"
# Shorter values are not masked: masking every "ab" in a stream would garble it, and a
# secret that short is no secret. (They are still never printed: URLs are shown without
# their credentials, and the key is never put in a message.)
MIN_SECRET = 4

_lock = threading.Lock()
_secrets: frozenset[str] = frozenset()


class SecretPattern:
    """Finds secrets in text as a reader makes it out (boundary/lookalike.py), and gives the spans
    of the original text they cover. `sub` is `re.Pattern.sub`'s, with a fixed replacement."""

    def __init__(self, folded_secrets: Iterable[str]) -> None:
        # longest first, so a secret that contains another is masked whole
        ordered = sorted(set(folded_secrets), key=len, reverse=True)
        self._regex = re.compile("|".join(re.escape(secret) for secret in ordered))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The (start, end) of each secret in `text`, in order and apart."""
        if not text or self._regex.search(folded(text)) is None:  # the usual case: no mapping back
            return []
        flat, origins = folded_with_origins(text)
        spans: list[tuple[int, int]] = []
        for found in self._regex.finditer(flat):
            start, end = origins[found.start()], origins[found.end() - 1] + 1
            while end < len(text) and is_mark(text[end]):  # accents drawn on its last character
                end += 1
            if spans and start < spans[-1][1]:  # two secrets in one character (a ligature)
                spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
            else:
                spans.append((start, end))
        return spans

    def sub(self, replacement: str, text: str) -> str:
        """`text` with each secret's span replaced by `replacement`."""
        spans = self.spans(text)
        if not spans:
            return text
        pieces, cursor = [], 0
        for start, end in spans:
            pieces += [text[cursor:start], replacement]
            cursor = end
        pieces.append(text[cursor:])
        return "".join(pieces)


_pattern: SecretPattern | None = None


def core_of(secret: str) -> str:
    """What identifies `secret`: its characters without the invisible ones or surrounding whitespace."""
    return without_invisible(secret).strip()


def secret_pattern(secrets: Iterable[str]) -> SecretPattern | None:
    """One pattern that finds every secret of `secrets` (at least MIN_SECRET characters as a reader
    makes them out) in any of the disguises the module docstring lists; None when there is none."""
    cores = {core for secret in secrets if len(core := folded(core_of(secret))) >= MIN_SECRET}
    return SecretPattern(cores) if cores else None


def add_secret(value: str | None) -> None:
    """Mask `value` (see `secret_pattern`) from now on."""
    global _secrets, _pattern
    if not value or len(folded(core := core_of(value))) < MIN_SECRET:
        return
    with _lock:
        if core in _secrets:
            return
        _secrets = _secrets | {core}
        _pattern = secret_pattern(_secrets)


def known_secrets() -> frozenset[str]:
    """Every registered secret, as `core_of` gives it (for the stream masker and the recorder's last guard)."""
    return _secrets


def forget_secrets() -> None:
    """Drop every registered secret (tests start each case clean)."""
    global _secrets, _pattern
    with _lock:
        _secrets = frozenset()
        _pattern = None


def pattern_for(also: Iterable[str] = ()) -> SecretPattern | None:
    """The pattern `mask` uses, widened by `also`: secrets one output must not carry that are not
    registered (a recording header's last guard); None when there is nothing to find."""
    secrets = _secrets
    extra = {core for value in also if len(folded(core := core_of(value))) >= MIN_SECRET} - secrets
    return secret_pattern(secrets | extra) if extra else _pattern


def mask(text: str) -> str:
    """`text` with every registered secret replaced by `***`."""
    pattern = _pattern
    if pattern is None or not text:
        return text
    return pattern.sub(MASK, text)


# words in a variable's name that say its value is a credential (the recorder's last guard, `specview info`)
SECRET_NAME_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")


def secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a credential (its value is never shown)."""
    return any(word in name.upper() for word in SECRET_NAME_WORDS)


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
