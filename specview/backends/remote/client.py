"""HTTP for the remote backend: one httpx client, clear errors, SSE streaming that can be stopped.

Every failure becomes a BackendError whose message names what went wrong and what to try.
The API key travels only in the Authorization header, and what the URL carried as
credentials (`user:password@`, query values) only in the requests: both are registered as
secrets (core/secrets.py), so any message, label or token that would echo them is masked.
Every answer is read with a bound (MAX_BODY_BYTES, MAX_EVENT_BYTES) and decoded strictly.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx
from httpx_sse import connect_sse

from specview.backends.remote.sse import EventTooLarge, iter_event_data
from specview.core.api_key import DEFAULT_KEY_ENV, ApiKey
from specview.core.bounds import MAX_BODY_BYTES, MAX_EVENT_BYTES, MAX_MODELS
from specview.core.errors import BackendError
from specview.core.jsonio import JsonError, loads
from specview.core.secrets import add_url_secrets
from specview.core.text import sanitize, shown

CONNECT_TIMEOUT_S = 5.0
PROBE_TIMEOUT_S = 5.0
_MAX_DETAIL = 200


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
        raise BackendError(f"--url is not a valid URL ({exc}): {shown(_without_credentials(text))}") from None
    if parts.scheme not in ("http", "https"):
        raise BackendError(f"--url must start with http:// or https://, got {shown(_without_credentials(text))}")
    if not host:
        raise BackendError(f"--url names no host: {shown(_without_credentials(text))}")
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


class Connection:
    """An httpx client bound to one server, with the key in its headers and nowhere else."""

    def __init__(self, url: str, api_key: ApiKey | None, key_env: str | None) -> None:
        base = parse_base_url(url)
        self.root, self.api = base.root, base.api
        self._key_env = key_env or DEFAULT_KEY_ENV
        self._env_named = key_env is not None
        sent = api_key.for_url(url) if api_key else None  # only where the user sent it (core/api_key.py)
        self._sent_key = sent is not None
        headers = {"Authorization": f"Bearer {sent}"} if sent else {}
        self._client = httpx.Client(
            headers=headers,
            auth=base.auth,
            params=list(base.params) or None,
            timeout=httpx.Timeout(PROBE_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            follow_redirects=False,
        )
        self._lock = threading.Lock()
        self._active: httpx.Response | None = None

    # -- messages ---------------------------------------------------------------
    @staticmethod
    def scrub(text: str) -> str:
        """`text` from the server for a message: secrets masked first, controls visible, whitespace
        collapsed, then cut to a readable length (never the other way round)."""
        return sanitize(" ".join(text.split()), _MAX_DETAIL, one_line=True)

    def _transport_error(self, exc: httpx.HTTPError, what: str, *, streaming: bool = False) -> BackendError:
        where = self.root
        if isinstance(exc, httpx.ConnectError):
            reason = self.scrub(str(exc)) or "connection failed"
            return BackendError(
                f"cannot connect to {where} ({reason}); is the server running, and is the port right?"
            )
        if isinstance(exc, httpx.ConnectTimeout):
            return BackendError(f"connecting to {where} timed out; check the host and port")
        if isinstance(exc, httpx.ReadTimeout):
            waited = exc.request.extensions.get("timeout", {}).get("read") if _has_request(exc) else None
            span = f" for {waited:g} s" if isinstance(waited, int | float) else " for too long"
            return BackendError(f"{where} sent nothing{span} while {what} (read timeout: the stream stalled)")
        broken = httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError
        if streaming and isinstance(exc, broken):
            return BackendError(f"{where} closed the connection in the middle of the stream")
        if isinstance(exc, broken):
            return BackendError(
                f"{where} closed the connection or did not speak HTTP while {what}; "
                "is this the port of an OpenAI-compatible server?"
            )
        return BackendError(f"{what} at {where} failed: {type(exc).__name__}: {self.scrub(str(exc))}")

    def status_error(self, response: httpx.Response, what: str, model: str | None = None) -> BackendError:
        """One clear message for an HTTP error status (the body is read here, bounded)."""
        code = response.status_code
        detail = self.scrub(_error_detail(_read_bounded(response)))
        suffix = f": {detail}" if detail else ""
        if (code == 401 or code == 403) and not self._sent_key:
            how = (f"put the key in ${self._key_env}" if self._env_named else
                   f"name the variable that holds it with --api-key-env (e.g. --api-key-env {DEFAULT_KEY_ENV})")
            return BackendError(f"the server wants an API key ({code}{suffix}) and specview sent none; {how}")
        if code == 401 or code == 403:
            return BackendError(
                f"the server refused the API key ({code}{suffix}); put the right key in "
                f"${self._key_env} or name another variable with --api-key-env"
            )
        if code == 404 and model is not None:
            return BackendError(
                f"the server answered 404 while {what} with model {shown(model)}"
                f"{f' ({detail})' if detail else ''}; "
                "check --model (GET /v1/models lists the served models)"
            )
        if code == 404:
            return BackendError(
                f"{self.root} answered 404 while {what}; is this an OpenAI-compatible server "
                "(a base URL such as http://HOST:PORT/v1)?"
            )
        return BackendError(f"the server failed while {what} (HTTP {code}{suffix})")

    # -- plain requests -----------------------------------------------------------
    def _get(self, url: str) -> tuple[int, bytes | None]:
        """GET `url`: (status, body), the body None when it was larger than MAX_BODY_BYTES."""
        with self._client.stream("GET", url) as response:
            return response.status_code, _read_bounded(response)

    def _body(self, method: str, url: str, what: str, *, json: dict[str, Any] | None = None,
              timeout: float | None = None, model: str | None = None, hint: str = "") -> bytes:
        """The body of a 200 answer, read with a bound; every failure (refused, timeout, non-200,
        too large) is a BackendError, and a non-200 answer carries `hint` (what to do about it)."""
        extra: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        try:
            with self._client.stream(method, url, json=json, **extra) as response:
                if response.status_code != 200:
                    error = self.status_error(response, what, model)
                    raise BackendError(f"{error}; {hint}") if hint else error
                body = _read_bounded(response)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, what) from None
        if body is None:
            raise BackendError(f"{self.root} answered with more than {MAX_BODY_BYTES // 2**20} MiB while {what}")
        return body

    def _json(self, body: bytes, what: str) -> Any:
        try:
            return loads(body)
        except JsonError as exc:
            raise BackendError(f"{self.root} did not answer with JSON while {what}: {exc}") from None

    def get_json(self, url: str, what: str) -> Any:
        """GET and decode JSON (strictly, bounded); every failure is a BackendError."""
        return self._json(self._body("GET", url, what), what)

    def served_models(self) -> dict[str, str]:
        """GET /v1/models: each served model id and its `owned_by` ("" when absent), at most
        MAX_MODELS of them; entries whose id is not a string are not models one can ask for."""
        listing = self.get_json(f"{self.api}/models", "listing models (GET /v1/models)")
        entries = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(entries, list):
            raise BackendError(f"{self.root} answered GET /v1/models without a model list")
        owners: dict[str, str] = {}
        for entry in entries[:MAX_MODELS]:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]:
                owner = entry.get("owned_by")
                owners[entry["id"]] = owner if isinstance(owner, str) else ""
        return owners

    def get_text(self, url: str, what: str, *, hint: str = "") -> str:
        """GET a text body (bounded); every failure (refused, timeout, non-200) is a BackendError,
        and a non-200 answer carries `hint` (what to do about it)."""
        return self._body("GET", url, what, hint=hint).decode("utf-8", errors="replace")

    def post_json(self, url: str, body: dict[str, Any], what: str, *, timeout: float,
                  model: str | None = None) -> Any:
        """POST JSON and decode the JSON answer (non-streamed, bounded); every failure is a
        BackendError. Safe from several threads at once (httpx's client pools connections)."""
        return self._json(self._body("POST", url, what, json=body, timeout=timeout, model=model), what)

    def probe_json(self, url: str) -> Any | None:
        """GET JSON or None, for optional endpoints (/props, /version, /server_info)."""
        try:
            status, body = self._get(url)
            return loads(body) if status == 200 and body is not None else None
        except (httpx.HTTPError, JsonError, RuntimeError):  # RuntimeError: the client was closed
            return None

    def probe_text(self, url: str) -> str | None:
        """GET text (bounded) or None; never raises."""
        try:
            status, body = self._get(url)
        except (httpx.HTTPError, RuntimeError):  # RuntimeError: the client was closed
            return None
        return body.decode("utf-8", errors="replace") if status == 200 and body is not None else None

    # -- streaming ----------------------------------------------------------------
    def stream(
        self,
        url: str,
        payload: dict[str, Any],
        stop: threading.Event,
        *,
        read_timeout: float,
        max_events: int,
        max_seconds: float,
        model: str | None,
    ) -> Iterator[tuple[dict[str, Any], float]]:
        """POST `payload` and yield (decoded SSE data, arrival time) until `[DONE]` or stop.

        Stops (closing the response) when `stop` is set, after `max_events` events or
        `max_seconds`; raises BackendError for HTTP errors, malformed lines, stalls and a
        stream that ends before the server said it was done.
        """
        timeout = httpx.Timeout(read_timeout, connect=CONNECT_TIMEOUT_S)
        what = "streaming the completion"
        started = time.monotonic()
        finished = False
        try:
            with connect_sse(self._client, "POST", url, json=payload, timeout=timeout) as source:
                response = source.response
                if response.status_code != 200:
                    raise self.status_error(response, what, model=model)
                kind = response.headers.get("content-type", "").partition(";")[0].strip()
                if kind != "text/event-stream":
                    raise BackendError(
                        f"the server did not answer with an event stream (content type {shown(kind)})"
                    )
                with self._lock:
                    self._active = response
                if stop.is_set():
                    return
                count = 0
                for text in iter_event_data(response.iter_bytes(), MAX_EVENT_BYTES):
                    arrived = time.monotonic()
                    if text.strip() == "[DONE]":
                        finished = True
                        break
                    if not text.strip():
                        continue
                    data = _decode_event(text, self.scrub)
                    if _is_error_event(data):
                        message = self.scrub(_message_of(data))
                        raise BackendError(f"the server reported an error mid-stream: {message}")
                    if _finish_reason(data) is not None:
                        finished = True
                    count += 1
                    yield data, arrived
                    if stop.is_set() or count >= max_events or arrived - started > max_seconds:
                        return
        except EventTooLarge as exc:
            raise BackendError(f"{self.root} sent a malformed stream: {exc}") from None
        except BackendError:
            raise
        except Exception as exc:
            if stop.is_set():  # interrupted on purpose: whatever the closed socket raised
                return
            if isinstance(exc, httpx.HTTPError):
                raise self._transport_error(exc, what, streaming=True) from None
            raise
        finally:
            with self._lock:
                self._active = None
        if not finished and not stop.is_set():
            raise BackendError(f"{self.root} closed the stream before the completion finished")

    def interrupt(self) -> None:
        """Unblock a stream being read (any thread): shut its socket down, then close it."""
        with self._lock:
            active = self._active
        if active is None:
            return
        stream = active.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes a reader blocked in recv (close alone does not)
        with contextlib.suppress(Exception):
            active.close()

    def close(self) -> None:
        """Close a running stream (unblocking its reader) and the client."""
        self.interrupt()
        self._client.close()


def _has_request(exc: httpx.HTTPError) -> bool:
    try:
        exc.request  # noqa: B018 - raises RuntimeError when the error carries no request
    except RuntimeError:
        return False
    return True


def _read_bounded(response: httpx.Response, limit: int = MAX_BODY_BYTES) -> bytes | None:
    """The body of a streamed response, or None once it passes `limit` bytes (reading stops)."""
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _decode_event(data: str, scrub: Any) -> dict[str, Any]:
    try:
        value = loads(data)
    except JsonError as exc:
        raise BackendError(f"the server sent a malformed stream line ({exc}): {scrub(data)!r}") from None
    if not isinstance(value, dict):
        raise BackendError(f"the server sent a stream line that is not a JSON object: {scrub(data)!r}")
    return value


def _is_error_event(data: dict[str, Any]) -> bool:
    return "error" in data and "choices" not in data and "meta_info" not in data


def _message_of(data: dict[str, Any]) -> str:
    err = data.get("error")
    if isinstance(err, dict):
        return str(err.get("message") or err)
    return str(err)


def _finish_reason(data: dict[str, Any]) -> object | None:
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0].get("finish_reason")
    meta = data.get("meta_info")
    if isinstance(meta, dict):
        return meta.get("finish_reason")
    if data.get("stop") is True:
        return "stop"
    return None


def _error_detail(raw: bytes | None) -> str:
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
