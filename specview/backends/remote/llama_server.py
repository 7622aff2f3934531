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

from specview.backends.remote.dialect import Dialect, RequestSettings, chunk_text, openai_request
from specview.backends.remote.llama_ledger import RoundLedger
from specview.backends.remote.server_kind import EXACT, NO_SPEC_NOTE, Probe, ServerFacts, ServerKind
from specview.core.events import Round
from specview.core.text import sanitize

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
    return sanitize(f"{' + '.join(dict.fromkeys(words))} ({','.join(named)})")


def _number(timings: dict[str, Any], key: str) -> float | None:
    value = timings.get(key)
    return float(value) if isinstance(value, int | float) else None


class LlamaServerDialect:
    """Round reconstruction for llama-server from cumulative counters."""

    name = "llama-server"

    def __init__(self, settings: RequestSettings) -> None:
        self.settings = settings
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
        n = _number(timings, "predicted_n")
        if n is None:  # an old build: one token per chunk with text
            self._counted += 1 if text else 0
            n = self._counted
        return self.ledger.feed(
            int(n),
            int(_number(timings, "draft_n") or 0),
            int(_number(timings, "draft_n_accepted") or 0),
            _number(timings, "predicted_ms") or 0.0,
            text,
            t,
        )

    def finish(self, t: float) -> list[Round]:
        if self._pending:
            self.ledger.feed(self.ledger.n, self.ledger.draft_n, self.ledger.accepted, 0.0, self._pending, t)
            self._pending = ""
        return self.ledger.finish()

    def exact_rounds(self) -> list[Round] | None:
        """Every streamed round is already placed by the counters."""
        return None

    def missing_statistics(self) -> str | None:
        return None if self.saw_timings else f"this llama-server sent no per-token timings: {NO_SPEC_NOTE}"


_REPLAY_CAVEAT = (
    "models that cannot roll back partially (hybrid attention such as Qwen3.5/3.6, SWA) make the "
    "server replay accepted prefixes, and how that is counted depends on the build"
)


class LlamaServerKind(ServerKind):
    """llama.cpp's llama-server: /props names the build and the speculative types."""

    id = "llama-server"
    title = "llama-server"
    owners = ("llamacpp",)
    metrics_prefix = "llamacpp"
    tokens_counter = "llamacpp:tokens_predicted_total"
    active_gauge = "llamacpp:requests_processing"
    exact_per_round = True

    def identify(self, conn: Probe) -> Any | None:
        return conn.probe_json(f"{conn.root}/props")

    def recognised(self, identified: Any | None) -> bool:
        return isinstance(identified, dict) and "build_info" in identified

    def facts(self, conn: Probe, identified: Any | None, gamma: int | None) -> ServerFacts:
        build, types = None, ""
        if isinstance(identified, dict):
            build = sanitize(str(identified["build_info"])) if identified.get("build_info") else None
            settings = identified.get("default_generation_settings")
            params = settings.get("params", {}) if isinstance(settings, dict) else {}
            types = str(params.get("speculative.types", "")) if isinstance(params, dict) else ""
        speculating, slot_types = _slots(conn)
        method = method_label(types) or method_label(slot_types)
        return ServerFacts(self.id, build, gamma, speculating or method is not None, self.has_metrics(conn), method)
    def describe(self, facts: ServerFacts) -> tuple[dict[str, bool], str]:
        checked = "; totals cross-checked with /metrics" if facts.has_metrics else ""
        method = f" running {facts.method}" if facts.method else ""
        note = (f"llama-server build {facts.build or 'unknown'}{method}: rounds placed by timings_per_token's "
                f"cumulative counters{checked}; a round whose every token was held back inside a UTF-8 "
                f"character is split by inference and marked. Caveat: {_REPLAY_CAVEAT}")
        return dict(EXACT), note

    def dialect(self, settings: RequestSettings, facts: ServerFacts) -> Dialect:
        return LlamaServerDialect(settings)

    def in_flight_tokens(self, conn: Probe) -> int | None:
        """Σ n_decoded of the busy slots (/slots): llama-server adds a request's tokens and
        speculative counts to /metrics only when the request ends."""
        slots = conn.probe_json(f"{conn.root}/slots")
        if not isinstance(slots, list):
            return None
        total = 0
        for slot in slots[:1024]:
            if not isinstance(slot, dict) or slot.get("is_processing") is not True:
                continue
            for nxt in slot.get("next_token") or []:
                decoded = nxt.get("n_decoded") if isinstance(nxt, dict) else None
                if isinstance(decoded, int) and 0 <= decoded < 10_000_000:
                    total += decoded
        return total


def _slots(conn: Probe) -> tuple[bool, str]:
    """(does any slot speculate, the speculative types a slot last served with) from /slots."""
    slots = conn.probe_json(f"{conn.root}/slots")
    if not isinstance(slots, list):
        return False, ""
    speculating, types = False, ""
    for slot in slots[:1024]:
        if not isinstance(slot, dict):
            continue
        speculating = speculating or slot.get("speculative") is True
        params = slot.get("params")
        if isinstance(params, dict) and isinstance(params.get("speculative.types"), str):
            types = types or params["speculative.types"]
    return speculating, types


LLAMA_SERVER = LlamaServerKind()
