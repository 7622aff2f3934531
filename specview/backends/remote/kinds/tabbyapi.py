"""TabbyAPI (ExLlamaV3): nothing per round; the request's draft counts in its final usage chunk.

TabbyAPI names itself in `owned_by: "tabbyAPI"` (`ModelCard` in
https://github.com/theroyallab/tabbyAPI/blob/main/endpoints/core/types/model.py, on
`/v1/models` and on `/v1/model`, the loaded model's card, whose `parameters.draft` is set when a
draft model is loaded). With `stream_options.include_usage` the stream ends with a chunk whose
`usage.completion_tokens_details` carries `accepted_prediction_tokens` and
`rejected_prediction_tokens` (https://github.com/theroyallab/tabbyAPI/issues/452).

These field names are INFERRED from OpenAI's usage shape (its Predicted Outputs report the same two
counts there), not read from a TabbyAPI build or a recorded stream: specview has never seen a real
TabbyAPI answer, and the side panel's note says so. Drafted = accepted + rejected; the totals end
the request as a `Totals` (exact totals, rounds inferred). Each chunk with text counts as one
token meanwhile, timing only (the stream does not tell which tokens were drafted).
"""

from __future__ import annotations

from typing import Any

from specview.backends.remote.dialect import Dialect, RequestSettings, RoundMaker, chunk_text, counter, openai_request
from specview.backends.remote.server_kind import Probe, ServerFacts, ServerKind
from specview.kernel.backend import Exact, Note
from specview.kernel.events import Round
from specview.kernel.totals import Totals

__all__ = ["TABBYAPI"]  # the unit the plugin surface registers (specview/plugins/)

SOURCE = "usage.completion_tokens_details"


def usage_totals(event: dict[str, Any]) -> Totals | None:
    """The request's Totals from a chunk's `usage.completion_tokens_details`, or None when the
    chunk has no prediction counts (counts out of bounds are Invalid, naming the field)."""
    usage = event.get("usage")
    details = usage.get("completion_tokens_details") if isinstance(usage, dict) else None
    if not isinstance(details, dict):
        return None
    accepted = counter(details.get("accepted_prediction_tokens"), f"{SOURCE}.accepted_prediction_tokens")
    rejected = counter(details.get("rejected_prediction_tokens"), f"{SOURCE}.rejected_prediction_tokens")
    if accepted is None or rejected is None:
        return None
    tokens = counter(usage.get("completion_tokens"), "usage.completion_tokens") if isinstance(usage, dict) else None
    return Totals(accepted + rejected, accepted, tokens=tokens or None, source=SOURCE)


class TabbyDialect(Dialect):
    """Plain timing rounds while streaming; the final usage chunk's totals at the end."""

    name = "tabbyapi"

    def __init__(self, settings: RequestSettings) -> None:
        super().__init__(settings)
        self.maker = RoundMaker()
        self._totals: Totals | None = None

    def request(self) -> tuple[str, dict[str, Any]]:
        return openai_request(self.settings, {"stream_options": {"include_usage": True}})

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        totals = usage_totals(event)
        if totals is not None:
            self._totals = totals
        text = chunk_text(event)
        return [self.maker.plain(text, t, inferred=True)] if text else []

    def request_totals(self) -> Totals | None:
        return self._totals


class TabbyKind(ServerKind):
    """TabbyAPI: `/v1/model` is the loaded model's card, owned by "tabbyAPI"."""

    id = "tabbyapi"
    title = "TabbyAPI"
    priority = 40
    owners = ("tabbyapi",)

    def identify(self, conn: Probe) -> Any | None:
        return conn.probe_json(f"{conn.root}/v1/model")

    def recognised(self, identified: Any | None) -> bool:
        return isinstance(identified, dict) and str(identified.get("owned_by", "")).lower() in self.owners

    def facts(self, conn: Probe, identified: Any | None, gamma: int | None) -> ServerFacts:
        card = identified if isinstance(identified, dict) else {}
        params = card.get("parameters")
        drafting = isinstance(params, dict) and params.get("draft") is not None
        return ServerFacts(self.id, None, gamma, drafting or gamma is not None, self.has_metrics(conn))

    def describe(self, facts: ServerFacts) -> tuple[dict[str, bool], Note]:
        # no per-position counts ever; α and τ rest on the end-of-request totals
        exact: dict[str, bool] = {Exact.ACCEPTANCE: False, Exact.TAU: False, Exact.TOKENS_PER_SECOND: True}
        return exact, Note("totals_only", {"server": self.server_name(facts)})

    def dialect(self, settings: RequestSettings, facts: ServerFacts) -> Dialect:
        return TabbyDialect(settings)


TABBYAPI = TabbyKind()
