"""Prometheus's HTTP API (`/api/v1/query`, `/api/v1/query_range`), read through the project's Connection.

Every request has the connection's deadline and a bounded body (client.py); the answer is decoded
strictly and checked: `status` "success", a vector or a matrix of at most MAX_SERIES series, each
label a string, each value a number Prometheus writes as a string ("NaN" and "+Inf" included: they
are kept as floats here, and the fleet source says what it does with them). Credentials travel only
to this URL: basic auth (`--prometheus-user`, the password from the variable
`--prometheus-password-env` names) or a bearer token (the variable `--prometheus-token-env` names);
both are registered as secrets, so an error that quotes them is masked. A 401/403 says which flags
give credentials, never the API-key flags of a direct watch.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from specview.backends.remote.client import Connection
from specview.backends.remote.http_errors import StatusError, scrub
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.api_key import ApiKey
from specview.boundary.bounds import MAX_SECONDS
from specview.boundary.secrets import add_secret
from specview.boundary.text import sanitize
from specview.kernel.errors import BackendError, CliError
from specview.texts.catalog import Phrase

MAX_SERIES = 20_000  # series of one answer (a fleet of 1000 instances × 20 series; more: narrow --match)
MAX_LABELS = 64  # labels of one series
MAX_POINTS = 11_000  # points of one series in a range answer (Prometheus's own limit)

Labels = dict[str, str]
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class PrometheusSeries:
    """One series of an answer: its labels and its points (one for a vector)."""

    labels: Labels
    points: tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class PrometheusAuth:
    """Credentials for Prometheus only (never shown): basic auth, or a bearer token."""

    user: str | None = None
    password: str | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)
    token_env: str | None = None  # the variable the token came from (a 401 names it)
    password_env: str | None = None

    def __post_init__(self) -> None:
        add_secret(self.password)
        add_secret(self.token)

    @classmethod
    def from_env(cls, user: str | None, password_env: str | None, token_env: str | None) -> PrometheusAuth:
        """The credentials the flags name; CliError for a variable named but unset or empty (never
        a fallback to any other variable)."""
        if user is not None and password_env is None:
            raise CliError("watcherr.auth.user_needs_password")
        if password_env is not None and user is None:
            raise CliError("watcherr.auth.password_needs_user")
        if token_env is not None and user is not None:
            raise CliError("watcherr.auth.both")
        password = _named(password_env, "--prometheus-password-env")
        token = _named(token_env, "--prometheus-token-env")
        return cls(user, password, token, token_env, password_env)


def _named(env: str | None, flag: str) -> str | None:
    if env is None:
        return None
    value = os.environ.get(env, "").strip()
    if not value:
        raise CliError("watcherr.auth.unset", flag=flag, env=sanitize(env, 60, one_line=True))
    return value


class PrometheusApi:
    """Instant and range queries against one Prometheus."""

    def __init__(self, url: str, auth: PrometheusAuth | None = None, timeouts: Timeouts | None = None) -> None:
        auth = auth or PrometheusAuth()
        key = ApiKey(auth.token, named=True) if auth.token else None
        basic = (auth.user or "", auth.password or "") if auth.user is not None else None
        self._auth = auth
        self._conn = Connection(url, key, auth.token_env, timeouts, auth=basic)
        self.root = self._conn.root

    def vector(self, expr: str, at: float) -> list[PrometheusSeries]:
        """An instant query at `at` (Unix seconds)."""
        return self._get("query", {"query": expr, "time": f"{at:.3f}"}, "vector")

    def matrix(self, expr: str, start: float, end: float, step: float) -> list[PrometheusSeries]:
        """A range query from `start` to `end` every `step` seconds."""
        params = {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:.3f}"}
        return self._get("query_range", params, "matrix")

    def _get(self, endpoint: str, params: dict[str, str], kind: str) -> list[PrometheusSeries]:
        what = Phrase("watcherr.doing.querying", endpoint=endpoint)
        try:
            answer = self._conn.get_json(f"{self.root}/api/v1/{endpoint}?{urlencode(params)}", what)
        except StatusError as exc:
            raise self._status(exc) from None
        if not isinstance(answer, dict):
            raise BackendError("watcherr.api.not_object", root=self.root, what=what)
        if answer.get("status") != "success":
            detail = scrub(f"{answer.get('errorType', '')}: {answer.get('error', '')}")
            raise BackendError("watcherr.api.refused", root=self.root, detail=detail)
        data = answer.get("data")
        if not isinstance(data, dict) or data.get("resultType") != kind or not isinstance(data.get("result"), list):
            raise BackendError("watcherr.api.no_result", root=self.root, kind=kind, what=what)
        result = data["result"]
        if len(result) > MAX_SERIES:
            raise BackendError("watcherr.api.too_many", root=self.root, n=len(result), most=MAX_SERIES)
        try:
            return [_series(item, kind) for item in result]
        except _WrongShape:
            raise BackendError("watcherr.api.wrong_shape", root=self.root) from None

    def scrape_errors(self) -> dict[tuple[str, str], str]:
        """Each active target's last scrape error by (job, instance), from /api/v1/targets (scrubbed:
        masked, one line, short); empty where Prometheus does not serve that endpoint."""
        answer = self._conn.probe_json(f"{self.root}/api/v1/targets?state=active")
        data = answer.get("data") if isinstance(answer, dict) else None
        targets = data.get("activeTargets") if isinstance(data, dict) else None
        found: dict[tuple[str, str], str] = {}
        for target in targets[:MAX_SERIES] if isinstance(targets, list) else []:
            labels = target.get("labels") if isinstance(target, dict) else None
            error = target.get("lastError") if isinstance(target, dict) else None
            if isinstance(labels, dict) and isinstance(error, str) and error:
                found[(str(labels.get("job", "")), str(labels.get("instance", "")))] = scrub(error)
        return found

    def _status(self, exc: StatusError) -> BackendError:
        if exc.code not in (401, 403):
            return exc
        auth = self._auth
        if auth.token_env is None and auth.user is None:
            how = Phrase("watcherr.api.wants_credentials")
        elif auth.token_env is not None:
            how = Phrase("watcherr.api.refused_token", env=sanitize(auth.token_env, 60, one_line=True))
        else:
            how = Phrase("watcherr.api.refused_password", env=sanitize(auth.password_env or "", 60, one_line=True))
        return BackendError("watcherr.api.status", root=self.root, code=exc.code, how=how)

    def interrupt(self) -> None:
        self._conn.interrupt()

    def close(self) -> None:
        self._conn.close()


class _WrongShape(Exception):
    """A result entry that is not a series (`_get` says so, naming Prometheus)."""


def _series(item: Any, kind: str) -> PrometheusSeries:
    """One result entry, checked (_WrongShape for one that is not a series)."""
    labels = item.get("metric") if isinstance(item, dict) else None
    if not isinstance(labels, dict) or len(labels) > MAX_LABELS:
        raise _WrongShape
    for value in labels.values():  # JSON keys are strings already
        if not isinstance(value, str):
            raise _WrongShape
    raw = [item.get("value")] if kind == "vector" else item.get("values")
    if not isinstance(raw, list) or len(raw) > MAX_POINTS:
        raise _WrongShape
    return PrometheusSeries(labels, tuple(_point(p) for p in raw))


def _point(raw: Any) -> Point:
    if not isinstance(raw, list) or len(raw) != 2 or not isinstance(raw[1], str):
        raise _WrongShape
    t = raw[0]
    if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t <= MAX_SECONDS:
        raise _WrongShape
    try:
        value = float(raw[1])  # "NaN", "+Inf", "-Inf" parse: the caller decides
    except ValueError:
        raise _WrongShape from None
    return float(t), value
