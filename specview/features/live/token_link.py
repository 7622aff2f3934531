"""From a token selected in the live view to the lossless-sampling lesson: what must be recomputed
to show its real p and q."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from specview.backends.local.run_options import llama_options
from specview.features.learn.explain.context import TokenRows
from specview.kernel.backend import Backend
from specview.kernel.events import TokenEvent, TokenStatus
from specview.kernel.runspec import RunSpec


@dataclass(frozen=True, slots=True)
class TokenRequest:
    """One drafted position of a local run: the models, the prefix before it and the drafted token."""

    target: str
    draft: str | None
    prefix: tuple[int, ...]
    drafted: int
    temperature: float

    def rows(self) -> TokenRows:
        """Recompute the position's p and q (loads the models, in an engine process of its own: call
        from a worker)."""
        from specview.backends.local.engine_process import engine_call

        rows: TokenRows = engine_call("specview.backends.local.token_rows:position_rows", self.target, self.draft,
                                      self.prefix, self.drafted, self.temperature)
        return rows


def token_request(backend: Backend, spec: RunSpec, tokens: Sequence[TokenEvent], index: int,
                  emitted_total: int) -> TokenRequest | str:
    """The request for `tokens[index]`, or the catalog key of why there is none."""
    prompt: list[int] | None = getattr(backend, "prompt_tokens", None)
    if spec.kind != "llama" or prompt is None:
        return "learn.link.not_local"
    token = tokens[index]
    if token.status is TokenStatus.CORRECTED and index > 0:
        drafted = tokens[index - 1].token_id  # the rejected draft at the same position
    elif token.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED):
        drafted = token.token_id
    else:
        return "learn.link.no_draft"
    if sum(1 for t in tokens if t.emitted) != emitted_total:
        return "learn.link.pruned"  # the view no longer holds the whole text before it
    before = [t.token_id for t in tokens[:index] if t.emitted]
    if drafted is None or any(t is None for t in before):
        return "learn.link.not_local"
    own = llama_options(spec)
    target = own.target
    if target is None:
        from specview.backends.local.demo import demo_model_path

        target = str(demo_model_path())
    draft = None if own.draft in (None, "ngram") else own.draft
    prefix = tuple(prompt) + tuple(t for t in before if t is not None)
    return TokenRequest(target, draft, prefix, drafted, backend.info.temperature)
