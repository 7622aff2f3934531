"""llama.cpp llama-server: rounds rebuilt from `timings_per_token`'s cumulative counters.

With `"timings_per_token": true` every chunk carries the slot's cumulative `timings`:
`predicted_n` (tokens generated), `predicted_ms` and, once a draft was made, `draft_n` /
`draft_n_accepted`. `llama_ledger.RoundLedger` places tokens by `predicted_n` and rounds by the
counters (never by counting chunks: a token that ends inside a UTF-8 character sends none, and
in chat mode a token the parser holds back sends none either). Chunks without `timings` (the
role delta of a chat stream) lend their text to the next one.

The speculative method (`--spec-type`) is read from /props, or from /slots (the server's
default settings say "none" even when it drafts; a slot that served a request names its
types), and shown as e.g. "MTP (draft-mtp)".
"""

from __future__ import annotations

from typing import Any

from specview.backends.remote.dialect import Dialect, RequestSettings, chunk_text, counter, openai_request
from specview.backends.remote.llama_ledger import RoundLedger
from specview.backends.remote.server_kind import AT_REQUEST_END, EXACT, Probe, ServerFacts, ServerKind
from specview.boundary.bounds import MAX_SECONDS, MAX_SLOTS, mapping, optional_real, sequence
from specview.boundary.text import sanitize
from specview.features.live.real_run import ServerProgram
from specview.kernel.backend import Note
from specview.kernel.events import Round

__all__ = ["LLAMA_SERVER"]  # the unit the plugin surface registers (specview/plugins/)

# llama-server's --spec-type names, and what people call them
METHOD_NAMES = {
    "draft-mtp": "MTP",
    "draft-simple": "draft model",
    "draft-eagle3": "EAGLE-3",
    "draft-dflash": "DFlash",
    "draft-dspark": "DSpark",
    "ngram-simple": "n-gram",
    "ngram-map-k": "n-gram",
    "ngram-map-k4v": "n-gram",
    "ngram-mod": "n-gram",
    "ngram-cache": "n-gram cache",
}


def method_label(types: str) -> str | None:
    """'MTP (draft-mtp)' for a `speculative.types` value such as "none,draft-mtp"; None for none."""
    named = [t.strip() for t in types.split(",") if t.strip() and t.strip() != "none"]
    if not named:
        return None
    words = [METHOD_NAMES.get(t, t) for t in named]
    return sanitize(f"{' + '.join(dict.fromkeys(words))} ({','.join(named)})", 100, one_line=True)


def _ms(timings: dict[str, Any], key: str) -> float | None:
    return optional_real(timings.get(key), f"timings.{key}", 0.0, MAX_SECONDS * 1000)


class LlamaServerDialect(Dialect):
    """Round reconstruction for llama-server from cumulative counters."""

    name = "llama-server"

    def __init__(self, settings: RequestSettings) -> None:
        super().__init__(settings)
        self.ledger = RoundLedger(settings.gamma)
        self._pending = ""
        self._counted = 0  # tokens counted by chunk when a build sends no predicted_n
        self.saw_timings = False

    def request(self) -> tuple[str, dict[str, Any]]:
        extra: dict[str, Any] = {"timings_per_token": True}
        if self.settings.gamma is not None:
            extra["speculative.n_max"] = self.settings.gamma
        return openai_request(self.settings, extra)

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        text = self._pending + chunk_text(event)
        timings = event.get("timings")
        if not isinstance(timings, dict):
            self._pending = text
            return []
        self._pending = ""
        self.saw_timings = True
        n = counter(timings.get("predicted_n"), "timings.predicted_n")
        if n is None:  # an old build: one token per chunk with text
            self._counted += 1 if text else 0
            n = self._counted
        # Absent draft counters have not moved (they appear once a draft was made); the ledger
        # refuses counters that go back, jump too far, or accept more than was drafted.
        draft_n = counter(timings.get("draft_n"), "timings.draft_n")
        accepted = counter(timings.get("draft_n_accepted"), "timings.draft_n_accepted")
        return self.ledger.feed(
            n,
            self.ledger.draft_n if draft_n is None else draft_n,
            self.ledger.accepted if accepted is None else accepted,
            _ms(timings, "predicted_ms") or 0.0,
            text,
            t,
        )

    def finish(self, t: float) -> list[Round]:
        if self._pending:
            self.ledger.feed(self.ledger.n, self.ledger.draft_n, self.ledger.accepted, 0.0, self._pending, t)
            self._pending = ""
        return self.ledger.finish()

    def missing_statistics(self) -> Note | None:
        return None if self.saw_timings else Note("llama_server_no_timings")


class LlamaServerKind(ServerKind):
    """llama.cpp's llama-server: /props names the build and the speculative types."""

    id = "llama-server"
    title = "llama-server"
    priority = 10
    engine = ServerProgram("llama.cpp llama-server", 8080)
    owners = ("llamacpp",)
    metrics_prefix = "llamacpp"
    tokens_counter = "llamacpp:tokens_predicted_total"
    active_gauge = "llamacpp:requests_processing"  # a count of busy slots, not one of the averaged gauges
    # a request's counts land in /metrics when its slot is released (`metrics_on_prediction`), and
    # each scrape resets the averaged gauges (`predicted_tokens_seconds`, …; llama.cpp#27364): only
    # `_total` counters and the busy-slot count are read, never those gauges
    counters_update = AT_REQUEST_END
    exact_per_round = True

    def identify(self, conn: Probe) -> Any | None:
        return conn.probe_json(f"{conn.root}/props")

    def recognised(self, identified: Any | None) -> bool:
        return isinstance(identified, dict) and "build_info" in identified

    def facts(self, conn: Probe, identified: Any | None, gamma: int | None) -> ServerFacts:
        build, types = None, ""
        if isinstance(identified, dict):
            build = str(identified.get("build_info"))[:100] if identified.get("build_info") else None
            settings = identified.get("default_generation_settings")
            params = settings.get("params", {}) if isinstance(settings, dict) else {}
            types = str(params.get("speculative.types", "")) if isinstance(params, dict) else ""
        speculating, slot_types = _slots(conn)
        method = method_label(types) or method_label(slot_types)
        return ServerFacts(self.id, build, gamma, speculating or method is not None, self.has_metrics(conn), method)

    def learn_method(self, conn: Probe) -> str | None:
        """/slots names the types once a slot has served a request (/props may not)."""
        return method_label(_slots(conn)[1])

    def describe(self, facts: ServerFacts) -> tuple[dict[str, bool], Note]:
        # the catalog's note carries the caveat: models that cannot roll back partially make the
        # server replay accepted prefixes, and how that is counted depends on the build
        note = Note("llama_server_checked" if facts.has_metrics else "llama_server", {"build": facts.build or "?"})
        return dict(EXACT), note

    def dialect(self, settings: RequestSettings, facts: ServerFacts) -> Dialect:
        return LlamaServerDialect(settings)

    def in_flight_tokens(self, conn: Probe) -> int | None:
        """Σ n_decoded of the busy slots (/slots): llama-server adds a request's tokens and
        speculative counts to /metrics only when the request ends."""
        slots = _slot_list(conn)
        if slots is None:
            return None
        total = 0
        for i, slot in enumerate(slots):
            if not isinstance(slot, dict) or slot.get("is_processing") is not True:
                continue
            field = f"/slots[{i}].next_token"
            nexts = slot.get("next_token")
            nexts = [nexts] if isinstance(nexts, dict) else nexts  # older builds: one object
            for j, nxt in enumerate(sequence(nexts, field, MAX_SLOTS) if nexts is not None else []):
                decoded = counter(mapping(nxt, f"{field}[{j}]").get("n_decoded"), f"{field}[{j}].n_decoded")
                total += decoded or 0
        return total


def _slot_list(conn: Probe) -> list[Any] | None:
    """/slots (an optional endpoint: None when absent or not a list), at most MAX_SLOTS of them."""
    slots = conn.probe_json(f"{conn.root}/slots")
    return sequence(slots, "/slots", MAX_SLOTS) if isinstance(slots, list) else None


def _slots(conn: Probe) -> tuple[bool, str]:
    """(does any slot speculate, the speculative types a slot last served with) from /slots."""
    slots = _slot_list(conn)
    if slots is None:
        return False, ""
    speculating, types = False, ""
    for slot in slots:
        if not isinstance(slot, dict):
            continue
        speculating = speculating or slot.get("speculative") is True
        params = slot.get("params")
        if isinstance(params, dict) and isinstance(params.get("speculative.types"), str):
            types = types or params["speculative.types"]
    return speculating, types


LLAMA_SERVER = LlamaServerKind()
