"""HTTP for the remote backend: one httpx client, clear errors, SSE streaming that can be stopped.

Every failure becomes a BackendError whose message names what went wrong and what to try.
The API key travels only in the Authorization header: it is never put in a message, a log
line, BackendInfo or a recording, and any message that would echo it is scrubbed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
from httpx_sse import SSEError, connect_sse

from specview.core.errors import BackendError
from specview.core.runspec import DEFAULT_KEY_ENV

CONNECT_TIMEOUT_S = 5.0
PROBE_TIMEOUT_S = 5.0
_MAX_DETAIL = 200


def split_base_url(url: str) -> tuple[str, str]:
    """(root, api): `http://h:p/v1` and `http://h:p` both give root `http://h:p`, api `…/v1`."""
    text = url.strip().rstrip("/")
    if not text.startswith(("http://", "https://")):
        raise BackendError(f"--url must start with http:// or https://, got {url!r}")
    if text.endswith("/v1"):
        return text[: -len("/v1")], text
    return text, text + "/v1"


class Connection:
    """An httpx client bound to one server, with the key in its headers and nowhere else."""

    def __init__(self, url: str, api_key: str | None, key_env: str | None) -> None:
        self.root, self.api = split_base_url(url)
        self._key = api_key
        self._key_env = key_env or DEFAULT_KEY_ENV
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(PROBE_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            follow_redirects=False,
        )
        self._lock = threading.Lock()
        self._active: httpx.Response | None = None

    # -- messages ---------------------------------------------------------------
    def scrub(self, text: str) -> str:
        """`text` without the key and without control characters, cut to a readable length."""
        if self._key:
            text = text.replace(self._key, "***")
        clean = "".join(ch if ch.isprintable() else " " for ch in text)
        clean = " ".join(clean.split())
        return clean if len(clean) <= _MAX_DETAIL else clean[: _MAX_DETAIL - 1] + "…"

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
        """One clear message for an HTTP error status."""
        code = response.status_code
        detail = self.scrub(_error_detail(response))
        suffix = f": {detail}" if detail else ""
        if code == 401 or code == 403:
            return BackendError(
                f"the server refused the API key ({code}{suffix}); put the right key in "
                f"${self._key_env} or name another variable with --api-key-env"
            )
        if code == 404 and model is not None:
            return BackendError(
                f"the server answered 404 while {what} with model {model!r}"
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
    def get_json(self, url: str, what: str) -> Any:
        """GET and decode JSON; every failure is a BackendError."""
        try:
            response = self._client.get(url)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, what) from None
        if response.status_code != 200:
            raise self.status_error(response, what)
        try:
            return response.json()
        except ValueError:
            raise BackendError(f"{url} did not answer with JSON while {what}") from None

    def get_text(self, url: str, what: str, *, hint: str = "") -> str:
        """GET a text body; every failure (refused, timeout, non-200) is a BackendError, and a
        non-200 answer carries `hint` (what to do about it)."""
        try:
            response = self._client.get(url)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, what) from None
        if response.status_code != 200:
            error = self.status_error(response, what)
            raise BackendError(f"{error}; {hint}") if hint else error
        return response.text

    def post_json(self, url: str, body: dict[str, Any], what: str, *, timeout: float,
                  model: str | None = None) -> Any:
        """POST JSON and decode the JSON answer (non-streamed); every failure is a BackendError.
        Safe from several threads at once (httpx's client pools connections)."""
        try:
            response = self._client.post(url, json=body, timeout=timeout)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, what) from None
        if response.status_code != 200:
            raise self.status_error(response, what, model)
        try:
            return response.json()
        except ValueError:
            raise BackendError(f"{url} did not answer with JSON while {what}") from None

    def probe_json(self, url: str) -> Any | None:
        """GET JSON or None, for optional endpoints (/props, /version, /metrics)."""
        try:
            response = self._client.get(url)
            if response.status_code != 200:
                return None
            return response.json()
        except (httpx.HTTPError, ValueError, RuntimeError):  # RuntimeError: the client was closed
            return None

    def probe_text(self, url: str) -> str | None:
        """GET text or None; never raises."""
        try:
            response = self._client.get(url)
        except (httpx.HTTPError, RuntimeError):  # RuntimeError: the client was closed
            return None
        return response.text if response.status_code == 200 else None

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
                    response.read()
                    raise self.status_error(response, what, model=model)
                with self._lock:
                    self._active = response
                count = 0
                for event in source.iter_sse():
                    arrived = time.monotonic()
                    if event.data.strip() == "[DONE]":
                        finished = True
                        break
                    if not event.data.strip():
                        continue
                    data = _decode_event(event.data, self.scrub)
                    if _is_error_event(data):
                        message = self.scrub(_message_of(data))
                        raise BackendError(f"the server reported an error mid-stream: {message}")
                    if _finish_reason(data) is not None:
                        finished = True
                    count += 1
                    yield data, arrived
                    if stop.is_set() or count >= max_events or arrived - started > max_seconds:
                        return
        except httpx.HTTPError as exc:
            if stop.is_set():
                return
            raise self._transport_error(exc, what, streaming=True) from None
        except SSEError as exc:
            reason = self.scrub(str(exc))
            raise BackendError(f"the server did not answer with an event stream ({reason})") from None
        finally:
            with self._lock:
                self._active = None
        if not finished and not stop.is_set():
            raise BackendError(f"{self.root} closed the stream before the completion finished")

    def close(self) -> None:
        """Close a running stream (unblocking its reader) and the client."""
        with self._lock:
            active = self._active
        if active is not None:
            active.close()
        self._client.close()


def _has_request(exc: httpx.HTTPError) -> bool:
    try:
        exc.request  # noqa: B018 - raises RuntimeError when the error carries no request
    except RuntimeError:
        return False
    return True


def _decode_event(data: str, scrub: Any) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        raise BackendError(f"the server sent a malformed stream line: {scrub(data)!r}") from None
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


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:_MAX_DETAIL]
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body.get("message")))
        if isinstance(err, dict):
            return str(err.get("message") or "")
        if err is not None:
            return str(err)
    return ""
