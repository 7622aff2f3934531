"""What went wrong with a request, in one sentence that names the server and what to try.

Transport failures (refused, timed out, closed, broken framing), deadlines that passed
(deadline.py), HTTP error statuses and redirects each get their own message; text from the
server is scrubbed (secrets masked, controls visible, cut short) before it is quoted.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from specview.backends.remote.deadline import Flight
from specview.boundary.api_key import DEFAULT_KEY_ENV
from specview.boundary.jsonio import JsonError, loads
from specview.boundary.secrets import add_url_secrets
from specview.boundary.text import sanitize, shown
from specview.kernel.errors import BackendError
from specview.texts.catalog import Phrase

_MAX_DETAIL = 200
_CUT_SHORT = "peer closed connection without sending complete message body"


class HostileAnswer(BackendError):
    """An answer no server should send (stacked or unknown compression): refused even where a
    failure would only mean "absent" (the optional probes). `answer` names it."""

    def __init__(self, root: str, answer: object, why: object, what: object) -> None:
        super().__init__("backenderr.http.hostile", root=root, answer=answer, why=why, what=what)
        self.answer = answer


class StatusError(BackendError):
    """An HTTP error status (`code`), for callers that word some statuses their own way."""

    def __init__(self, key: str, code: int, /, **fields: object) -> None:
        super().__init__(key, code=code, **fields)
        self.code = code


def scrub(text: str) -> str:
    """`text` from the server for a message: secrets masked first, controls visible, whitespace
    collapsed, then cut to a readable length (never the other way round)."""
    return sanitize(" ".join(text.split()), _MAX_DETAIL, one_line=True)


def expired_error(root: str, what: object, flight: Flight) -> BackendError:
    """The deadline that passed, and the option that sets it."""
    kind, seconds = flight.expired or (flight.kind, flight.seconds)
    if kind == "headers":
        return BackendError("backenderr.http.expired_headers", root=root, seconds=seconds, what=what)
    if kind == "event":
        seen = flight.bytes_since_progress
        trickle = Phrase("backenderr.http.trickle", bytes=seen) if seen else ""
        return BackendError("backenderr.http.expired_event", root=root, seconds=seconds, what=what, trickle=trickle)
    if kind == "stream":
        return BackendError("backenderr.http.expired_stream", root=root, seconds=seconds, what=what)
    return BackendError("backenderr.http.expired_request", root=root, seconds=seconds, what=what)


def transport_error(exc: httpx.HTTPError, root: str, what: object, flight: Flight, *, answered: bool,
                    streaming: bool) -> BackendError:
    """A failed request: `answered` once the status line and headers had come."""
    if flight.expired is not None:
        return expired_error(root, what, flight)
    if flight.cancelled:
        return BackendError("backenderr.http.stopped", root=root, what=what)
    if isinstance(exc, httpx.ConnectError):
        reason = scrub(str(exc)) or Phrase("backenderr.http.connection_failed")
        return BackendError("backenderr.http.cannot_connect", root=root, reason=reason)
    if isinstance(exc, httpx.ConnectTimeout):
        return BackendError("backenderr.http.connect_timeout", root=root)
    if isinstance(exc, httpx.ReadTimeout):
        waited = exc.request.extensions.get("timeout", {}).get("read") if _has_request(exc) else None
        span = (Phrase("backenderr.http.for_seconds", seconds=waited) if isinstance(waited, int | float)
                else Phrase("backenderr.http.for_too_long"))
        return BackendError("backenderr.http.read_timeout", root=root, span=span, what=what)
    detail = scrub(str(exc))
    if not answered and isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return BackendError("backenderr.http.not_http", root=root, what=what)
    if isinstance(exc, httpx.RemoteProtocolError) and _CUT_SHORT in str(exc):
        how = detail.removeprefix(_CUT_SHORT).strip(" ()") or Phrase("backenderr.http.before_the_end")
        if streaming:
            return BackendError("backenderr.http.cut_mid_stream", root=root, how=how)
        return BackendError("backenderr.http.cut_short", root=root, what=what, how=how)
    if isinstance(exc, httpx.RemoteProtocolError):
        broken = Phrase("backenderr.http.bad_chunked") if "chunk" in detail.lower() else ""
        return BackendError("backenderr.http.framing", root=root, what=what, broken=broken, detail=detail)
    if isinstance(exc, httpx.ReadError | httpx.WriteError):
        where = (Phrase("backenderr.http.mid_stream") if streaming
                 else Phrase("backenderr.http.while_doing", what=what))
        return BackendError("backenderr.http.closed", root=root, where=where, detail=detail or type(exc).__name__)
    return BackendError("backenderr.http.failed", root=root, what=what, kind=type(exc).__name__, detail=detail)


def redirect_error(root: str, code: int, location: str | None, request_url: str, what: object) -> BackendError:
    """A 3xx: where it pointed (credentials and query left out), never followed."""
    if not location:
        return BackendError("backenderr.http.redirect_nowhere", root=root, code=code, what=what)
    add_url_secrets(location)  # a password in it is masked wherever it might still be quoted
    target = _shown_url(urljoin(request_url, location.strip()))
    return BackendError("backenderr.http.redirect", root=root, code=code, target=target, what=what)


def _shown_url(url: str) -> str:
    """`url` without credentials, query or fragment, quoted and sanitised."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        return shown(urlunsplit((parts.scheme, netloc, parts.path, "", "")), 160)
    except ValueError:
        return shown(url.split("?", 1)[0].rpartition("@")[2], 160)


@dataclass(frozen=True, slots=True)
class KeyUse:
    """What the connection did with the API key, for a 401/403 message."""

    env: str  # the variable that holds it (or would)
    env_named: bool  # --api-key-env (or the config) named that variable
    sent: bool  # the key went with the requests (boundary/api_key.py: only where the user sent it)


def status_error(root: str, key: KeyUse, code: int, detail: object, what: object, model: str | None) -> StatusError:
    """One clear message for an HTTP error status; `detail` is what its body says, scrubbed."""
    suffix = Phrase("backenderr.http.suffix", detail=detail) if detail else ""
    if (code == 401 or code == 403) and not key.sent:
        how = (Phrase("backenderr.http.key_put", env=key.env) if key.env_named else
               Phrase("backenderr.http.key_name", default=DEFAULT_KEY_ENV))
        return StatusError("backenderr.http.key_wanted", code, suffix=suffix, how=how)
    if code == 401 or code == 403:
        return StatusError("backenderr.http.key_refused", code, suffix=suffix, env=key.env)
    if code == 404 and model is not None:
        said = Phrase("backenderr.http.paren", detail=detail) if detail else ""
        return StatusError("backenderr.http.no_model", code, what=what, model=shown(model), said=said)
    if code == 404:
        return StatusError("backenderr.http.not_found", code, root=root, what=what)
    return StatusError("backenderr.http.status", code, root=root, what=what, suffix=suffix)


def error_detail(raw: bytes | None) -> str:
    """What an error body says (its message, or its text), unmasked and uncut: callers scrub it."""
    if raw is None:
        return "(an error body larger than the limit)"
    try:
        body = loads(raw)
    except JsonError:
        return raw.decode("utf-8", errors="replace")
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body.get("message")))
        if isinstance(err, dict):
            return str(err.get("message") or "")
        if err is not None:
            return str(err)
    return ""


def _has_request(exc: httpx.HTTPError) -> bool:
    try:
        exc.request  # noqa: B018 - raises RuntimeError when the error carries no request
    except RuntimeError:
        return False
    return True
