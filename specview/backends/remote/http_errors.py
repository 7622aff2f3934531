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

_MAX_DETAIL = 200
_CUT_SHORT = "peer closed connection without sending complete message body"


class HostileAnswer(BackendError):
    """An answer no server should send (stacked or unknown compression): refused even where a
    failure would only mean "absent" (the optional probes). `what` names it."""

    def __init__(self, message: str, what: str) -> None:
        super().__init__(message)
        self.what = what


class StatusError(BackendError):
    """An HTTP error status (`code`), for callers that word some statuses their own way."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def scrub(text: str) -> str:
    """`text` from the server for a message: secrets masked first, controls visible, whitespace
    collapsed, then cut to a readable length (never the other way round)."""
    return sanitize(" ".join(text.split()), _MAX_DETAIL, one_line=True)


def expired_error(root: str, what: str, flight: Flight) -> BackendError:
    """The deadline that passed, and the option that sets it."""
    kind, seconds = flight.expired or (flight.kind, flight.seconds)
    if kind == "headers":
        return BackendError(f"{root} did not start answering within {seconds:g} s while {what} "
                            "(read timeout; --read-timeout sets it)")
    if kind == "event":
        seen = flight.bytes_since_progress
        trickle = f"; {seen} bytes of comments, keep-alives or a trickle came, no event" if seen else ""
        return BackendError(f"{root} sent no event for {seconds:g} s while {what} "
                            f"(read timeout: the stream stalled{trickle}; --read-timeout sets it)")
    if kind == "stream":
        return BackendError(f"{root} was still streaming after {seconds:g} s while {what}; the rounds so far "
                            "are kept (--stream-timeout sets the limit)")
    return BackendError(f"{root} did not finish answering within {seconds:g} s while {what}; is it overloaded "
                        "or stuck? (--request-timeout sets the limit)")


def transport_error(exc: httpx.HTTPError, root: str, what: str, flight: Flight, *, answered: bool,
                    streaming: bool) -> BackendError:
    """A failed request: `answered` once the status line and headers had come."""
    if flight.expired is not None:
        return expired_error(root, what, flight)
    if flight.cancelled:
        return BackendError(f"{what} at {root} was stopped")
    if isinstance(exc, httpx.ConnectError):
        reason = scrub(str(exc)) or "connection failed"
        return BackendError(f"cannot connect to {root} ({reason}); is the server running, and is the port right?")
    if isinstance(exc, httpx.ConnectTimeout):
        return BackendError(f"connecting to {root} timed out; check the host and port (--connect-timeout sets "
                            "the limit)")
    if isinstance(exc, httpx.ReadTimeout):
        waited = exc.request.extensions.get("timeout", {}).get("read") if _has_request(exc) else None
        span = f" for {waited:g} s" if isinstance(waited, int | float) else " for too long"
        return BackendError(f"{root} sent nothing{span} while {what} (read timeout: the stream stalled)")
    detail = scrub(str(exc))
    if not answered and isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return BackendError(f"{root} closed the connection or did not speak HTTP while {what}; "
                            "is this the port of an OpenAI-compatible server?")
    if isinstance(exc, httpx.RemoteProtocolError) and _CUT_SHORT in str(exc):
        how = detail.removeprefix(_CUT_SHORT).strip(" ()") or "before the end"
        if streaming:
            return BackendError(f"{root} closed the connection in the middle of the stream ({how}: "
                                "the answer was cut short)")
        return BackendError(f"{root} cut its answer short while {what}: {how}, then it closed the connection")
    if isinstance(exc, httpx.RemoteProtocolError):
        broken = "bad chunked encoding: " if "chunk" in detail.lower() else ""
        return BackendError(f"{root} broke the HTTP framing of its answer while {what} ({broken}{detail})")
    if isinstance(exc, httpx.ReadError | httpx.WriteError):
        where = "in the middle of the stream" if streaming else f"while {what}"
        return BackendError(f"{root} closed the connection {where} ({detail or type(exc).__name__})")
    return BackendError(f"{what} at {root} failed: {type(exc).__name__}: {detail}")


def redirect_error(root: str, code: int, location: str | None, request_url: str, what: str) -> BackendError:
    """A 3xx: where it pointed (credentials and query left out), never followed."""
    if not location:
        return BackendError(f"{root} answered with a redirect (HTTP {code}) without a Location while {what}; "
                            "specview does not follow redirects")
    add_url_secrets(location)  # a password in it is masked wherever it might still be quoted
    target = _shown_url(urljoin(request_url, location.strip()))
    return BackendError(f"{root} answered with a redirect (HTTP {code}) to {target} while {what}; specview does "
                        "not follow redirects: if that is the server, pass its address as --url")


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
    sent: bool  # the key went with the requests (core/api_key.py: only where the user sent it)


def status_error(root: str, key: KeyUse, code: int, detail: str, what: str, model: str | None) -> StatusError:
    """One clear message for an HTTP error status; `detail` is what its body says, scrubbed."""
    return StatusError(_status_message(root, key, code, detail, what, model), code)


def _status_message(root: str, key: KeyUse, code: int, detail: str, what: str, model: str | None) -> str:
    suffix = f": {detail}" if detail else ""
    if (code == 401 or code == 403) and not key.sent:
        how = (f"put the key in ${key.env}" if key.env_named else
               f"name the variable that holds it with --api-key-env (e.g. --api-key-env {DEFAULT_KEY_ENV})")
        return f"the server wants an API key ({code}{suffix}) and specview sent none; {how}"
    if code == 401 or code == 403:
        return (
            f"the server refused the API key ({code}{suffix}); put the right key in "
            f"${key.env} or name another variable with --api-key-env"
        )
    if code == 404 and model is not None:
        return (
            f"the server answered 404 while {what} with model {shown(model)}"
            f"{f' ({detail})' if detail else ''}; "
            "check --model (GET /v1/models lists the served models)"
        )
    if code == 404:
        return (
            f"{root} answered 404 while {what}; is this an OpenAI-compatible server "
            "(a base URL such as http://HOST:PORT/v1)?"
        )
    return f"{root} failed while {what} (HTTP {code}{suffix})"


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
