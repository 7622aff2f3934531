"""HTTP for the remote backend: one httpx client, clear errors, SSE streaming that can be stopped.

Every failure becomes a BackendError whose message names what went wrong and what to try.
The API key travels only in the Authorization header, and what the URL carried as
credentials (`user:password@`, query values) only in the requests: both are registered as
secrets (boundary/secrets.py), so any message, label or token that would echo them is masked.
Every answer is read with a bound (MAX_BODY_BYTES, MAX_EVENT_BYTES), with at most one layer of
compression undone under that bound (decode.py), and decoded strictly. Every request has a
wall-clock deadline enforced by shutting its socket down (deadline.py, timeouts.py), and
`interrupt` ends whatever is in flight at once, before the headers too. Redirects are not
followed: a 3xx is an error that says where it pointed.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import httpx

from specview.backends.reason import reason_of
from specview.backends.remote.base_url import parse_base_url
from specview.backends.remote.deadline import Flight, cancel, in_flight
from specview.backends.remote.decode import Damaged, RefusedEncoding, body_encoding, inflated
from specview.backends.remote.http_errors import (
    HostileAnswer,
    KeyUse,
    error_detail,
    expired_error,
    redirect_error,
    scrub,
    status_error,
    transport_error,
)
from specview.backends.remote.sse import EventTooLarge, iter_event_data
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.api_key import DEFAULT_KEY_ENV, ApiKey
from specview.boundary.bounds import MAX_BODY_BYTES, MAX_EVENT_BYTES, MAX_MODELS
from specview.boundary.jsonio import JsonError, loads
from specview.boundary.text import shown
from specview.kernel.errors import BackendError
from specview.texts.catalog import Phrase

_SLACK_S = 1.0  # httpx's per-read timeout, after the deadline it backs up
_SSE_HEADERS = {"Accept": "text/event-stream", "Cache-Control": "no-store"}


class Connection:
    """An httpx client bound to one server, with the key in its headers and nowhere else."""

    def __init__(self, url: str, api_key: ApiKey | None, key_env: str | None,
                 timeouts: Timeouts | None = None, *, auth: tuple[str, str] | None = None) -> None:
        """`auth`: basic-auth credentials given apart from the URL (its own `user:password@` else)."""
        base = parse_base_url(url)
        self.root, self.api = base.root, base.api
        self.timeouts = timeouts or Timeouts()
        self._key_env = key_env or DEFAULT_KEY_ENV
        self._env_named = key_env is not None
        sent = api_key.for_url(url) if api_key else None  # only where the user sent it (boundary/api_key.py)
        self._sent_key = sent is not None
        # identity: httpx would otherwise inflate every listed layer before any bound (decode.py)
        headers = {"Accept-Encoding": "identity"}
        if sent:
            headers["Authorization"] = f"Bearer {sent}"
        self._client = httpx.Client(
            headers=headers,
            auth=auth or base.auth,
            params=list(base.params) or None,
            follow_redirects=False,
            # every request connects anew, so deadline.py sees each socket before its headers
            limits=httpx.Limits(max_keepalive_connections=0),
            verify=_tls(),
        )

    @staticmethod
    def scrub(text: str) -> str:
        """`text` from the server for a message (see http_errors.scrub)."""
        return scrub(text)

    # -- one request ----------------------------------------------------------------
    @contextmanager
    def _request(self, method: str, url: str, what: str | Phrase, seconds: float, *, kind: str = "request",
                 first: float | None = None, json: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> Iterator[tuple[httpx.Response, Flight]]:
        """Send a request inside a Flight (its deadline: `seconds` for the whole, `first` for the
        headers); every transport failure inside the block is a BackendError."""
        per_read = first if first is not None else seconds
        # httpx's own per-read timeout only backs the deadline up: it comes a little after it
        timeout = httpx.Timeout(per_read + _SLACK_S, connect=self.timeouts.connect)
        with in_flight(self, self.root, what, seconds, kind) as flight:
            if first is not None:
                flight.expect(first, "headers")
            answered = False
            try:
                with self._client.stream(method, url, json=json, headers=headers, timeout=timeout,
                                         extensions={"trace": flight.trace}) as response:
                    answered = True
                    yield response, flight
            except httpx.HTTPError as exc:
                raise transport_error(exc, self.root, what, flight, answered=answered,
                                      streaming=kind == "stream") from None

    def _chunks(self, response: httpx.Response, what: str | Phrase, flight: Flight) -> Iterator[bytes]:
        """The body's bytes, its one layer of compression (if any) undone under the bound."""
        try:
            encoding = body_encoding(response.headers.get_list("content-encoding", split_commas=True))
        except RefusedEncoding as exc:
            raise HostileAnswer(self.root, exc.what, exc.why, what) from None
        try:
            yield from inflated(_counted(response.iter_raw(), flight), encoding)
        except Damaged as exc:
            raise BackendError("backenderr.client.damaged", root=self.root, damage=reason_of(exc), what=what) from None
        if flight.expired is not None:  # a body that ends at EOF ends early when its socket is shut
            raise expired_error(self.root, what, flight)

    def _status_error(self, response: httpx.Response, what: str | Phrase, flight: Flight,
                      model: str | None = None) -> BackendError:
        """One clear message for a status that is not 200 (an error body is read here, bounded)."""
        code = response.status_code
        if 300 <= code < 400:
            return redirect_error(self.root, code, response.headers.get("location"), str(response.request.url),
                                  what)
        try:
            detail: str | Phrase = scrub(error_detail(_read_bounded(self._chunks(response, what, flight))))
        except HostileAnswer as exc:
            detail = Phrase("backenderr.client.body_encoded", answer=exc.answer)
        except (BackendError, httpx.HTTPError):
            detail = Phrase("backenderr.client.body_unread")
        return status_error(self.root, KeyUse(self._key_env, self._env_named, self._sent_key), code, detail, what,
                            model)

    # -- plain requests -----------------------------------------------------------
    def _body(self, method: str, url: str, what: str | Phrase, *, json: dict[str, Any] | None = None,
              seconds: float | None = None, model: str | None = None, hint: str | Phrase = "") -> bytes:
        """The body of a 200 answer, read with a bound within `seconds` (default: the request
        timeout); every failure (refused, deadline, non-200, too large) is a BackendError, and a
        non-200 answer carries `hint` (what to do about it)."""
        with self._request(method, url, what, seconds or self.timeouts.request, json=json) as (response, flight):
            if response.status_code != 200:
                error = self._status_error(response, what, flight, model)
                raise BackendError("backenderr.client.with_hint", error=error, hint=hint) if hint else error
            body = _read_bounded(self._chunks(response, what, flight))
        if body is None:
            raise BackendError("backenderr.client.too_large", root=self.root, mib=MAX_BODY_BYTES // 2**20, what=what)
        return body

    def _json(self, body: bytes, what: str | Phrase) -> Any:
        try:
            return loads(body)
        except JsonError as exc:
            raise BackendError("backenderr.client.not_json", root=self.root, what=what, reason=str(exc)) from None

    def get_json(self, url: str, what: str | Phrase) -> Any:
        """GET and decode JSON (strictly, bounded); every failure is a BackendError."""
        return self._json(self._body("GET", url, what), what)

    def served_models(self) -> dict[str, str]:
        """GET /v1/models: each served model id and its `owned_by` ("" when absent), at most
        MAX_MODELS of them; entries whose id is not a string are not models one can ask for."""
        listing = self.get_json(f"{self.api}/models", Phrase("backenderr.doing.models"))
        entries = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(entries, list):
            raise BackendError("backenderr.client.no_model_list", root=self.root)
        owners: dict[str, str] = {}
        for entry in entries[:MAX_MODELS]:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]:
                owner = entry.get("owned_by")
                owners[entry["id"]] = owner if isinstance(owner, str) else ""
        return owners

    def get_text(self, url: str, what: str | Phrase, *, hint: str | Phrase = "") -> str:
        """GET a text body (bounded); every failure (refused, timeout, non-200) is a BackendError,
        and a non-200 answer carries `hint` (what to do about it)."""
        return self._body("GET", url, what, hint=hint).decode("utf-8", errors="replace")

    def post_json(self, url: str, body: dict[str, Any], what: str | Phrase, *, timeout: float,
                  model: str | None = None) -> Any:
        """POST JSON and decode the JSON answer (non-streamed, bounded, the whole of it within
        `timeout` s); every failure is a BackendError. Safe from several threads at once."""
        return self._json(self._body("POST", url, what, json=body, seconds=timeout, model=model), what)

    def _probe(self, url: str) -> bytes | None:
        """GET an optional endpoint: its body, or None when it is absent, fails or is too large.
        An answer no server should send (HostileAnswer) is still an error."""
        return self._probe_sized(url)[0]

    def _probe_sized(self, url: str) -> tuple[bytes | None, bool]:
        """`_probe`'s body, and whether it was dropped for passing MAX_BODY_BYTES."""
        what = Phrase("backenderr.doing.asking", path=urlsplit(url).path or "/")
        try:
            with self._request("GET", url, what, self.timeouts.probe) as (response, flight):
                if response.status_code != 200:
                    return None, False
                body = _read_bounded(self._chunks(response, what, flight))
                return body, body is None
        except HostileAnswer:
            raise
        except (BackendError, RuntimeError):  # RuntimeError: the client was closed
            return None, False

    def probe_json_sized(self, url: str) -> tuple[Any | None, bool]:
        """`probe_json`, and whether the answer was dropped for passing MAX_BODY_BYTES (said apart
        from an absent endpoint by `specview doctor`)."""
        body, too_large = self._probe_sized(url)
        try:
            return (loads(body) if body is not None else None), too_large
        except JsonError:
            return None, False

    def probe_json(self, url: str) -> Any | None:
        """GET JSON or None, for optional endpoints (/props, /version, /server_info)."""
        body = self._probe(url)
        try:
            return loads(body) if body is not None else None
        except JsonError:
            return None

    def probe_text(self, url: str) -> str | None:
        """GET text (bounded) or None."""
        body = self._probe(url)
        return body.decode("utf-8", errors="replace") if body is not None else None

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

        The headers must come within `read_timeout`, then each event (comments and empty events
        are no progress); the whole stream may take `max_seconds` of waiting on the server (the
        time the caller holds an event, a paused view, does not count). Stops (closing the
        response) when `stop` is set or after `max_events` events; raises BackendError for HTTP
        errors, malformed lines, deadlines and a stream that ends before the server said it was done.
        """
        what = Phrase("backenderr.doing.streaming")
        finished = False
        try:
            with self._request("POST", url, what, max_seconds, kind="stream", first=read_timeout, json=payload,
                               headers=_SSE_HEADERS) as (response, flight):
                if response.status_code != 200:
                    raise self._status_error(response, what, flight, model=model)
                kind = response.headers.get("content-type", "").partition(";")[0].strip()
                if kind != "text/event-stream":
                    raise BackendError("backenderr.client.not_event_stream", kind=shown(kind))
                if stop.is_set():
                    return
                flight.expect(read_timeout, "event")
                count = 0
                for text in iter_event_data(self._chunks(response, what, flight), MAX_EVENT_BYTES):
                    arrived = time.monotonic()
                    if text.strip() == "[DONE]":
                        finished = True
                        break
                    if not text.strip():
                        continue
                    data = _decode_event(text, scrub)
                    if _is_error_event(data):
                        raise BackendError("backenderr.client.error_event", message=scrub(_message_of(data)))
                    if _finish_reason(data) is not None:
                        finished = True
                    count += 1
                    flight.hold()
                    yield data, arrived
                    flight.resume(read_timeout, "event")
                    if stop.is_set() or count >= max_events:
                        return
        except EventTooLarge as exc:
            raise BackendError("backenderr.client.malformed_stream", root=self.root, reason=reason_of(exc)) from None
        except BackendError:
            if stop.is_set():  # interrupted on purpose: whatever the shut socket raised
                return
            raise
        if not finished and not stop.is_set():
            raise BackendError("backenderr.client.stream_unfinished", root=self.root)

    def interrupt(self) -> None:
        """Unblock every request of this connection in flight (any thread), the stream's too,
        even before its headers came: their sockets are shut down."""
        cancel(self)

    def close(self) -> None:
        """Unblock what is in flight and close the client."""
        self.interrupt()
        self._client.close()


@cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context for every client: building one reads the CA bundle, which
    took a second per client under load (four of them for `compare`)."""
    return httpx.create_ssl_context()


def _counted(raw: Iterator[bytes], flight: Flight) -> Iterator[bytes]:
    """`raw`, each chunk's size added to the flight's count since its last progress."""
    for chunk in raw:
        flight.bytes_since_progress += len(chunk)
        yield chunk


def _read_bounded(chunks: Iterable[bytes], limit: int = MAX_BODY_BYTES) -> bytes | None:
    """The body, or None once it passes `limit` bytes (reading stops)."""
    body = bytearray()
    for chunk in chunks:
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _decode_event(data: str, scrub: Any) -> dict[str, Any]:
    try:
        value = loads(data)
    except JsonError as exc:
        raise BackendError("backenderr.client.bad_line", reason=str(exc), line=repr(scrub(data))) from None
    if not isinstance(value, dict):
        raise BackendError("backenderr.client.line_not_object", line=repr(scrub(data)))
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
