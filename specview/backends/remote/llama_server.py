"""llama.cpp llama-server: every round rebuilt exactly from `timings_per_token`.

With `"timings_per_token": true` every chunk carries the slot's cumulative `timings`:
`predicted_n` (tokens generated), `predicted_ms` (stamped once per target forward, so the
tokens of one round share it) and, once a draft was made, `draft_n` / `draft_n_accepted`
(tools/server/server-context.cpp: the draft counter grows when the draft is made and the
accepted counter just before the round's tokens are sent, so a round's first chunk already
carries both increments). So a round is the run of tokens with one `predicted_ms`;
drafted = Δdraft_n, accepted = Δdraft_n_accepted; its tokens are `accepted` drafts and
then the target's corrected (a draft was refused) or bonus (all passed) token.

Tokens are counted from Δpredicted_n, not from chunks: a token that ends inside a UTF-8
character sends no chunk, and in chat mode a token the parser holds back sends none either.
Chunks without `timings` (the role delta of a chat stream) lend their text to the next one.
On builds that replay an accepted prefix (models that cannot roll back partially) a round
can carry one token more than accepted + 1: that token came from a second target forward
and is shown as its own plain round, marked inferred.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from specview.backends.remote.dialect import (
    Dialect,
    RequestSettings,
    RoundMaker,
    chunk_text,
    counter,
    new_tokens,
    openai_request,
    spread,
)
from specview.backends.remote.server_kind import EXACT, Probe, ServerFacts, ServerKind
from specview.core.backend import Note
from specview.core.bounds import MAX_ROUND_DRAFTS, MAX_SECONDS, Invalid, increase, optional_real
from specview.core.events import Round


@dataclass(slots=True)
class _Group:
    """The tokens of one target forward, as they arrive."""

    predicted_ms: float
    drafted: int
    accepted: int
    verify_ms: float | None
    texts: list[str] = field(default_factory=list)
    t_last: float = 0.0


def _ms(timings: dict[str, Any], key: str) -> float | None:
    return optional_real(timings.get(key), f"timings.{key}", 0.0, MAX_SECONDS * 1000)


class LlamaServerDialect:
    """Exact round reconstruction for llama-server."""

    name = "llama-server"

    def __init__(self, settings: RequestSettings) -> None:
        self.settings = settings
        self.maker = RoundMaker()
        self._group: _Group | None = None
        self._pending = ""
        self._n = 0
        self._draft_n = 0
        self._draft_acc = 0
        self._last_ms: float | None = None
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
        ms = _ms(timings, "predicted_ms") or 0.0
        # Absent counters have not moved (they appear once a draft was made).
        draft_n = counter(timings.get("draft_n"), "timings.draft_n")
        draft_acc = counter(timings.get("draft_n_accepted"), "timings.draft_n_accepted")
        draft_n = self._draft_n if draft_n is None else draft_n
        draft_acc = self._draft_acc if draft_acc is None else draft_acc
        if draft_acc > draft_n:
            raise Invalid(f"timings.draft_n_accepted ({draft_acc}) is larger than timings.draft_n ({draft_n})")
        added = new_tokens(self._n, n, "timings.predicted_n") if n is not None else (1 if text else 0)
        d_draft = increase(self._draft_n, draft_n, "timings.draft_n", MAX_ROUND_DRAFTS)
        d_acc = increase(self._draft_acc, draft_acc, "timings.draft_n_accepted", MAX_ROUND_DRAFTS)
        if n is not None:
            self._n = n
        self._draft_n, self._draft_acc = draft_n, draft_acc
        if added <= 0:
            self._append_text(text)
            return []
        out: list[Round] = []
        group = self._group
        if group is None or ms != group.predicted_ms or d_draft > 0:
            out = self._close()
            verify = None if self._last_ms is None else max(0.0, ms - self._last_ms)
            group = self._group = _Group(ms, d_draft, d_acc, verify)
            self._last_ms = ms
        else:
            group.drafted += d_draft
            group.accepted += d_acc
        group.texts.extend(spread(text, added))
        group.t_last = t
        return out

    def finish(self, t: float) -> list[Round]:
        if self._pending:
            self._append_text(self._pending)
            self._pending = ""
        return self._close()

    def exact_rounds(self) -> list[Round] | None:
        """Every streamed round is already exact."""
        return None

    def missing_statistics(self) -> Note | None:
        return None if self.saw_timings else Note("llama_server_no_timings")

    def _append_text(self, text: str) -> None:
        """Text that came without a token (held back, then released): it ends the last token."""
        if text and self._group is not None and self._group.texts:
            self._group.texts[-1] += text

    def _close(self) -> list[Round]:
        group, self._group = self._group, None
        if group is None or not group.texts:
            return []
        verify_s = None if group.verify_ms is None else group.verify_ms / 1000.0
        texts, t = group.texts, group.t_last
        if group.drafted <= 0:
            share = None if verify_s is None else verify_s / len(texts)
            return [self.maker.plain(text, t, share) for text in texts]
        used = min(len(texts), group.accepted + 1)
        rounds = [self.maker.drafted(group.drafted, group.accepted, texts[:used], t, verify_s, inferred=False)]
        rounds += [self.maker.plain(text, t, inferred=True) for text in texts[used:]]
        return rounds


class LlamaServerKind(ServerKind):
    """llama.cpp's llama-server: /props names the build and the speculative types."""

    id = "llama-server"
    title = "llama-server"
    owners = ("llamacpp",)
    metrics_prefix = "llamacpp"
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
        return ServerFacts(self.id, build, gamma, types not in ("", "none"), self.has_metrics(conn))

    def describe(self, facts: ServerFacts) -> tuple[dict[str, bool], Note]:
        # the catalog's note carries the caveat: models that cannot roll back partially make the
        # server replay accepted prefixes, and how that is counted depends on the build
        note = Note("llama_server_checked" if facts.has_metrics else "llama_server", {"build": facts.build or "?"})
        return dict(EXACT), note

    def dialect(self, settings: RequestSettings, facts: ServerFacts) -> Dialect:
        return LlamaServerDialect(settings)


LLAMA_SERVER = LlamaServerKind()
