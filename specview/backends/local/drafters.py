"""Draft sources for the llama backend: n-gram prompt lookup, a GGUF draft model, adaptive γ."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from specview.backends.local.calibrate import time_verify_costs
from specview.backends.local.model import Logits, ModelRunner
from specview.backends.local.top import top_tokens
from specview.backends.local.verify import row_probability
from specview.kernel.events import Calibration
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.sampling import probabilities, sample

FloatRows = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Draft:
    """Drafted tokens with q: `q_rows` (γ × vocab) when sampling, `q_values` (q of each draft) always;
    `source` names the drafter that made them (a round is attributed to it)."""

    tokens: list[int]
    q_values: list[float]
    q_rows: FloatRows | None = None
    source: str = ""
    q_top: tuple[tuple[int, ...], ...] = ()  # q's most probable tokens at each position (ModelDrafter keep_top)


EMPTY = Draft([], [])


@dataclass(frozen=True, slots=True)
class DraftCosts:
    """What drafting would cost, measured by a calibration before any draft is made (`--gamma auto`
    needs it to say no without paying for a try): `step_s` one draft step's forward (None: the
    drafter runs no model), `behind` the committed tokens it would first evaluate (the whole
    context before its first draft), `prefill_s` the target's measured prompt prefill per token
    (None: not measured) and `left` the tokens the run may still generate."""

    step_s: float | None
    behind: int
    prefill_s: float | None
    left: int


class Drafter(Protocol):
    """Where a round's drafts come from; the engine asks nothing else of it."""

    name: str
    one_hot: bool  # q is 1 for every draft (prompt lookup): greedy verification needs no q

    def reset(self) -> None:
        """Forget everything before a new generation."""

    def draft(self, history: Sequence[int], gamma: int, temperature: float, rng: np.random.Generator,
              stop: threading.Event | None = None) -> Draft:
        """Up to `gamma` drafts continuing `history` (its last token is the target's pending one)."""
        ...

    def sync(self, committed: Sequence[int]) -> None:
        """The target kept `committed`: drop whatever the drafter holds beyond it."""

    def time_step(self, repeats: int) -> list[float]:
        """`repeats` timings of one draft step's forward, its cache left as found ([]: no model runs)."""
        ...

    def behind(self, committed: Sequence[int]) -> int:
        """How many of `committed` the drafter evaluates before its next draft (catching up)."""
        ...

    @property
    def decode_s(self) -> float:
        """Seconds this drafter spent inside llama_decode so far."""
        ...


class NgramDrafter:
    """Prompt lookup: find the latest earlier occurrence of the last n tokens, propose what followed.

    Tries n = n_max … n_min (ngram-simple in llama.cpp uses one fixed n). q is one-hot.
    """

    name = "ngram"
    one_hot = True

    def __init__(self, vocab: int, n_max: int = 3, n_min: int = 2) -> None:
        if not 1 <= n_min <= n_max:
            raise ValueError("need 1 <= n_min <= n_max")
        self.vocab = vocab
        self.n_max, self.n_min = n_max, n_min

    def reset(self) -> None:
        """Nothing to forget: the history is the committed text."""

    def sync(self, committed: Sequence[int]) -> None:
        """Nothing held beyond the committed text."""

    def time_step(self, repeats: int) -> list[float]:
        """A lookup runs no model: its cost is Python's, measured per round by the engine."""
        return []

    def behind(self, committed: Sequence[int]) -> int:
        """It reads the committed text as it is: nothing to catch up on."""
        return 0

    @property
    def decode_s(self) -> float:
        return 0.0

    def propose(self, history: Sequence[int], gamma: int) -> list[int]:
        """Up to `gamma` tokens that followed the latest earlier match of the history's tail."""
        if gamma <= 0:
            return []
        arr = np.asarray(history, dtype=np.int64)
        size = len(arr)
        for n in range(min(self.n_max, size - 1), self.n_min - 1, -1):
            tail = size - n
            # starts 0..size-1-n whose first token matches the tail's, narrowed one position at a
            # time: a few small arrays, not an n-wide window over the whole history every round
            hits = np.flatnonzero(arr[:tail] == arr[tail])
            for j in range(1, n):
                if not len(hits):
                    break
                hits = hits[arr[hits + j] == arr[tail + j]]
            if len(hits):
                start = int(hits[-1]) + n
                return [int(t) for t in arr[start : start + gamma]]
        return []

    def draft(self, history: Sequence[int], gamma: int, temperature: float, rng: np.random.Generator,
              stop: threading.Event | None = None) -> Draft:
        tokens = self.propose(history, gamma)
        if not tokens:
            return EMPTY
        q_rows = None
        if temperature > 0:
            q_rows = np.zeros((len(tokens), self.vocab), dtype=np.float64)
            q_rows[np.arange(len(tokens)), tokens] = 1.0
        return Draft(tokens, [1.0] * len(tokens), q_rows, self.name)


class ModelDrafter:
    """A GGUF draft model: catches up on committed tokens, then drafts one token at a time.

    Its cache holds `cached` (a prefix of committed text, then this round's drafts);
    `sync` trims it back to what the target kept.
    """

    one_hot = False

    def __init__(self, runner: ModelRunner, target_vocab: int, *, p_min: float = 0.0, keep_top: int = 0) -> None:
        self.name = runner.name
        self.runner = runner
        self.vocab = target_vocab
        self.p_min = p_min
        self.keep_top = keep_top  # q's top tokens kept per position: the rank of the target's token (top.py)
        self.cached: list[int] = []

    def reset(self) -> None:
        self.runner.reset()
        self.cached = []

    @property
    def decode_s(self) -> float:
        return self.runner.decode_s

    def draft(
        self,
        history: Sequence[int],
        gamma: int,
        temperature: float,
        rng: np.random.Generator,
        stop: threading.Event | None = None,
    ) -> Draft:
        """Up to `gamma` drafts continuing `history` (its last token is the target's pending one)."""
        if gamma <= 0:
            return EMPTY
        new = list(history[len(self.cached) :])
        logits = self.runner.prefill(new, stop)
        if logits is None:  # stopped between prefill chunks
            self.runner.truncate(len(self.cached))
            return EMPTY
        self.cached.extend(new)
        tokens: list[int] = []
        q_values: list[float] = []
        q_rows: list[FloatRows] = []
        tops: list[tuple[int, ...]] = []
        row = self._row(logits)
        for k in range(gamma):
            if self.keep_top:
                tops.append(tuple(top_tokens(row, self.keep_top)))
            if temperature > 0:
                q = probabilities(row, temperature)
                token = sample(q, rng)
                qx = float(q[token])
            else:
                token = tops[-1][0] if self.keep_top else int(row.argmax())  # q's rank 1 is its argmax
                qx = row_probability(row, token, token)
            if qx < self.p_min:
                break  # adaptive: draft only what the draft model is confident about
            tokens.append(token)
            q_values.append(qx)
            if temperature > 0:
                q_rows.append(q)
            if k == gamma - 1 or self.runner.is_eog(token):
                break
            row = self._row(self.runner.eval([token]))
            self.cached.append(token)
        return Draft(tokens, q_values, np.stack(q_rows) if q_rows else None, self.name, tuple(tops[: len(tokens)]))

    def _row(self, logits: Logits) -> Logits:
        """The last row, cut or padded (-inf) to the target's vocabulary size."""
        row: Logits = logits[-1]
        if len(row) == self.vocab:
            return row
        if len(row) > self.vocab:
            cut: Logits = row[: self.vocab]
            return cut
        out = np.full(self.vocab, -np.inf, dtype=np.float32)
        out[: len(row)] = row
        return out

    def sync(self, committed: Sequence[int]) -> None:
        """Drop cached tokens that are not a prefix of `committed` minus its pending last token."""
        limit = min(len(self.cached), len(committed) - 1)
        keep = 0
        while keep < limit and self.cached[keep] == committed[keep]:
            keep += 1
        if keep < len(self.cached):
            self.runner.truncate(keep)
            del self.cached[keep:]

    def time_step(self, repeats: int) -> list[float]:
        """A 1-token forward at the end of its cache (where a draft step runs), timed as the
        target's calibration times its forwards."""
        return time_verify_costs(self.runner, [1], repeats=repeats)[0]

    def behind(self, committed: Sequence[int]) -> int:
        return max(0, len(committed) - len(self.cached))


class ChainedDrafter:
    """Spec types chained as llama.cpp chains them (llama.cpp #23269,
    https://github.com/ggml-org/llama.cpp/blob/master/docs/speculative.md): the draftless
    n-gram lookup first, and the draft model in the rounds where it finds nothing. Each round
    names the drafter whose drafts it verified (`Draft.source`), so α and τ come per drafter.

    The draft model catches up on the tokens the n-gram rounds committed when it next drafts,
    as llama.cpp's does. q: the model's rounds carry theirs, the n-gram's are one-hot (1.0 each).
    """

    one_hot = False  # only the n-gram's rounds are one-hot: a correction's q is then left unknown

    def __init__(self, first: NgramDrafter, then: ModelDrafter) -> None:
        self.first, self.then = first, then
        self.name = f"{first.name}+{then.name}"

    def reset(self) -> None:
        self.first.reset()
        self.then.reset()

    @property
    def decode_s(self) -> float:
        return self.then.decode_s

    def draft(self, history: Sequence[int], gamma: int, temperature: float, rng: np.random.Generator,
              stop: threading.Event | None = None) -> Draft:
        found = self.first.draft(history, gamma, temperature, rng, stop)
        return found if found.tokens else self.then.draft(history, gamma, temperature, rng, stop)

    def sync(self, committed: Sequence[int]) -> None:
        self.first.sync(committed)
        self.then.sync(committed)

    def time_step(self, repeats: int) -> list[float]:
        """The n-gram's: it drafts first and costs no forward (the cheaper bound of what drafting costs)."""
        return self.first.time_step(repeats)

    def behind(self, committed: Sequence[int]) -> int:
        return self.first.behind(committed)


class GammaPolicy(Protocol):
    """How the engine's γ is chosen: fixed, adaptive (below) or auto (gamma_auto.py)."""

    value: int  # γ for the next round (0: draft nothing)
    low: int
    high: int  # the largest γ it may choose: the calibration times forwards up to high + 1 tokens

    @property
    def settled(self) -> bool:
        """Off until the costs change: the engine's periodic recalibration would only cost time."""
        ...

    def update(self, drafted: int, accepted: int, draft_s: float | None = None) -> None:
        """One round's verdict (and, when timed, how long drafting took)."""

    def calibrated(self, cal: Calibration, draft: DraftCosts | None = None) -> None:
        """A new calibration of the target's forward costs (and, when there is a drafter, of drafting's)."""

    def take(self) -> list[GammaChoice]:
        """Decisions to report since the last call (only auto makes any)."""
        ...


class AdaptiveGamma:
    """γ that grows by one after a fully accepted round and shrinks by one after a rejection."""

    settled = False

    def __init__(self, start: int, low: int = 1, high: int | None = None) -> None:
        self.low = low
        self.high = high if high is not None else max(start, 2 * start)
        self.value = min(max(start, low), self.high)

    def calibrated(self, cal: Calibration, draft: DraftCosts | None = None) -> None:
        """Blind to cost: acceptance alone moves it."""

    def take(self) -> list[GammaChoice]:
        return []

    def update(self, drafted: int, accepted: int, draft_s: float | None = None) -> None:
        if drafted == 0:
            return
        if accepted >= drafted:
            self.value = min(self.high, self.value + 1)
        else:
            self.value = max(self.low, self.value - 1)
