"""The speculative loop on llama.cpp: draft, verify in one target batch, commit, roll back.

Invariant between rounds: the target's cache holds `committed[:-1]`; the last committed
token is pending and leads the next verification batch `[pending, d1 … dγ]`, whose γ + 1
logits rows give p for every draft and for the bonus. After the verdict the cache is
trimmed back to the new `committed[:-1]` with llama_memory_seq_rm.

`calibrate` measures what a k-token forward and a plain step cost at the live context
(calibrate.py); that time is kept off the run's clock, so tokens/s is the decoding's own.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from specview.backends.local.calibrate import DEFAULT_REPEATS, time_plain_steps, time_verify_costs
from specview.backends.local.drafters import EMPTY, Draft, DraftCosts, Drafter, GammaPolicy
from specview.backends.local.model import Logits, ModelRunner
from specview.backends.local.replay import VerifyBatch
from specview.backends.local.verify import verify_greedy_logits, verify_sampled_logits
from specview.backends.local.vocab import TextStream
from specview.kernel.contended import calibration_contended
from specview.kernel.events import Calibration, Round, TokenEvent, TokenStatus
from specview.kernel.machine_load import LoadSource, busiest, sample_load
from specview.kernel.sampling import Decision, discarded_after
from specview.kernel.what_if import with_q_ranks

RECALIBRATE_TOKENS = 256  # measure again once the context has grown this much (attention cost grows with it)
RECALIBRATE_ROUNDS = 64  # and at least this often: a machine's load changes, and the run averages its calibrations
RETRY_AFTER = 8  # rounds after a calibration taken on a busy machine before the next (doubling in a row)


@dataclass(slots=True)
class LoopTimes:
    """Where the time went, for the benchmark's per-round Python overhead."""

    rounds: int = 0
    wall_s: float = 0.0
    decode_s: float = 0.0

    @property
    def overhead_per_round_s(self) -> float | None:
        return (self.wall_s - self.decode_s) / self.rounds if self.rounds else None


@dataclass(slots=True)
class _DecodeState:
    """One run of the decode loop: the tokens committed, how many generated, the next round's index,
    whether it finished, and its text as streamed so far."""
    committed: list[int]
    generated: int = 0
    index: int = 0
    finished: bool = False
    stream: TextStream = field(default_factory=TextStream)


class Engine:
    """One generation: `start` prefills the prompt, each `step` returns one Round."""

    def __init__(
        self,
        target: ModelRunner,
        drafter: Drafter | None,
        prompt: Sequence[int],
        *,
        gamma: GammaPolicy | None,
        temperature: float,
        max_tokens: int,
        seed: int,
        calibrate_every: int | None = RECALIBRATE_ROUNDS,
    ) -> None:
        self.target = target
        self.calibrate_every = calibrate_every  # rounds between calibrations (None: on context growth only)
        self.drafter = drafter
        self.prompt = list(prompt)
        self.gamma = gamma
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.times = LoopTimes()
        self._run = _DecodeState(list(prompt))
        self._rng = np.random.default_rng(seed)
        self._calibration_rng = np.random.default_rng(seed + 1)  # never the run's own draws
        self._excluded_s = 0.0  # calibration time, kept off the rounds' clock
        self._calibrated_at: int | None = None
        self._rounds_since_calibration = 0
        self._prefill_s: float | None = None  # the prompt's prefill per token (what a drafter's catch-up costs)
        self.batches: list[VerifyBatch] = []  # every round's target forward, for `diff`'s replay (replay.py)
        self.load_source: LoadSource = sample_load  # read beside each calibration (a test passes a fake)
        self._retry_after: int | None = None  # the last calibration was disturbed: measure again this soon

    def start(self, stop: threading.Event | None = None) -> bool:
        """Reset both caches and evaluate the prompt but its last token; False if stopped."""
        self._run = _DecodeState(list(self.prompt))
        self._rng = np.random.default_rng(self.seed)
        self._calibration_rng = np.random.default_rng(self.seed + 1)
        self._excluded_s = 0.0
        self._calibrated_at = None
        self._rounds_since_calibration = 0
        self.times = LoopTimes()
        self.batches = []
        self.target.reset()
        if self.drafter is not None:
            self.drafter.reset()
        self._prefill_s = None
        if len(self.prompt) <= 1:
            return True
        before = self.target.decode_s
        if self.target.prefill(self.prompt[:-1], stop) is None:
            return False
        self._prefill_s = (self.target.decode_s - before) / (len(self.prompt) - 1)
        return True

    @property
    def finished(self) -> bool:
        run = self._run
        return run.finished or run.generated >= self.max_tokens

    @property
    def max_verify(self) -> int:
        """The most tokens one verification batch can hold: γ's upper bound + 1 (1 when plain)."""
        return 1 if self.gamma is None or self.drafter is None else self.gamma.high + 1

    @property
    def calibration_due(self) -> bool:
        """No calibration yet, the context grew by RECALIBRATE_TOKENS since the last one, or
        `calibrate_every` rounds went by (a machine whose load changes needs fresh numbers) —
        not while a settled γ policy is off: `--gamma auto`'s calibration times forwards of up to
        9 tokens, 3 s on the demo's 2 threads, more than the 64 plain rounds between them — or
        the last calibration was taken while the machine was busy (kernel/contended.py: the run
        and `--gamma auto` set it aside) and `_retry_after` rounds went by."""
        at = self._calibrated_at
        every = None if self.gamma is not None and self.gamma.settled else self.calibrate_every
        retry = None if every is None else self._retry_after
        return (at is None or self.target.n_past - at >= RECALIBRATE_TOKENS
                or (every is not None and self._rounds_since_calibration >= every)
                or (retry is not None and self._rounds_since_calibration >= retry))

    def calibrate(self, repeats: int = DEFAULT_REPEATS) -> Calibration:
        """Time k-token forwards (k = 1 … max_verify) and one plain step at the live context,
        `repeats` times each: the medians are the costs, the repeats their spread.

        The cache is left as found and the time spent is kept off the rounds' clock.
        """
        start = time.monotonic()
        target = self.target
        room = min(self.max_verify, target.n_ctx - target.n_past, target.n_batch)
        pending = self._run.committed[-1]
        before = self.load_source()  # how busy the machine is, read outside the timings (kernel/machine_load.py)
        costs = time_verify_costs(target, range(1, room + 1), repeats=repeats, token=pending)
        plain = time_plain_steps(target, pending, self._plain_choice, repeats=repeats)
        load = busiest((before, self.load_source()))
        draft = None if self.gamma is None else self._draft_costs(repeats)
        self._calibrated_at = target.n_past
        self._rounds_since_calibration = 0
        self._excluded_s += time.monotonic() - start
        cal = Calibration.timed(plain, costs, context=target.n_past, load=load)
        self._retry_after = self._retry(calibration_contended(cal) is not None)
        if self.gamma is not None:
            self.gamma.calibrated(cal, draft)
        return cal

    def _retry(self, busy: bool) -> int | None:
        """Rounds before measuring again after a calibration taken on a busy machine: RETRY_AFTER,
        twice that after each such calibration in a row, up to the usual interval (None: not busy)."""
        if not busy:
            return None
        longest = self.calibrate_every or RECALIBRATE_ROUNDS
        return min(longest, RETRY_AFTER if self._retry_after is None else 2 * self._retry_after)

    def _draft_costs(self, repeats: int) -> DraftCosts | None:
        """Drafting's costs before any draft: a draft model's first draft evaluates the whole
        context, which `--gamma auto` must be able to weigh without paying for it."""
        if self.drafter is None:
            return None
        steps = self.drafter.time_step(repeats)
        return DraftCosts(statistics.median(steps) if steps else None, self.drafter.behind(self._run.committed),
                          self._prefill_s, self.max_tokens - self._run.generated)

    def _plain_choice(self, rows: Logits) -> int:
        """What a plain round decides on its one row (the calibration's plain step runs it)."""
        if self.temperature > 0:
            return verify_sampled_logits(rows, [], None, self.temperature, self._calibration_rng)[0].token_id
        return verify_greedy_logits(rows, [])[0].token_id

    def _tally(self, t0: float, decode_before: float) -> int:
        """A round is over: its times counted, its index (the next one's is one on), the rounds since
        the last calibration one more."""
        self.times.rounds += 1
        self.times.wall_s += time.perf_counter() - t0
        self.times.decode_s += self._decode_s() - decode_before
        run = self._run
        index, run.index = run.index, run.index + 1
        self._rounds_since_calibration += 1
        return index

    def step(self, stop: threading.Event | None = None) -> Round:
        """Draft, verify once on the target, commit and roll back; one Round."""
        run = self._run
        decode_before = self._decode_s()
        t0 = time.perf_counter()
        draft = self._draft(stop)
        t1 = time.perf_counter()
        batch = [run.committed[-1], *draft.tokens]
        self.batches.append(VerifyBatch(self.target.n_past, tuple(batch)))
        rows = self.target.eval(batch, rows=len(batch))
        t2 = time.perf_counter()
        if self.temperature > 0:
            decisions = verify_sampled_logits(rows, draft.tokens, draft.q_rows, self.temperature, self._rng)
        else:
            one_hot = self.drafter is not None and self.drafter.one_hot
            decisions = verify_greedy_logits(rows, draft.tokens, draft.q_values, one_hot=one_hot)
        decisions, drafted = self._cut(decisions, len(draft.tokens))
        emitted = [d.token_id for d in decisions if d.status is not TokenStatus.REJECTED]
        run.committed.extend(emitted)
        run.generated += len(emitted)
        keep = len(run.committed) - 1
        if self.target.n_past != keep:  # a plain or fully accepted round has nothing to roll back
            self.target.truncate(keep)
        if self.drafter is not None:
            self.drafter.sync(run.committed)
        accepted = sum(1 for d in decisions if d.status is TokenStatus.ACCEPTED)
        if self.gamma is not None:
            self.gamma.update(drafted, accepted, t1 - t0 if draft.tokens else None)
        events, discarded = self._events(decisions, draft, final=self.finished)
        index = self._tally(t0, decode_before)
        return Round(
            index=index,
            drafted=drafted,
            tokens=with_q_ranks(events, draft.q_top),
            t_draft_s=None if self.drafter is None else t1 - t0,
            t_verify_s=t2 - t1,
            t_wall=time.monotonic() - self._excluded_s,
            discarded=discarded,
            drafter=draft.source if drafted else "",
            q_top=draft.q_top[:drafted],
        )

    # parts ---------------------------------------------------------------------------
    def _draft(self, stop: threading.Event | None) -> Draft:
        if self.drafter is None or self.gamma is None:
            return EMPTY
        run = self._run
        room = self.target.n_ctx - self.target.n_past - 1
        gamma = min(self.gamma.value, self.max_tokens - run.generated - 1, room - 1)
        if gamma <= 0:
            return EMPTY
        draft = self.drafter.draft(run.committed, gamma, self.temperature, self._rng, stop)
        return _stop_at_eog(draft, self.target)

    def _cut(self, decisions: list[Decision], drafted: int) -> tuple[list[Decision], int]:
        """Keep decisions up to the first emitted end-of-generation token or the token budget."""
        run = self._run
        budget = self.max_tokens - run.generated
        kept: list[Decision] = []
        for d in decisions:
            if d.status is TokenStatus.REJECTED:
                kept.append(d)
                continue
            if budget <= 0:
                break
            kept.append(d)
            budget -= 1
            if self.target.is_eog(d.token_id):
                run.finished = True
                break
        if len(kept) < len(decisions):
            drafted = sum(1 for d in kept if d.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED))
        return kept, drafted

    def _events(
        self, decisions: list[Decision], draft: Draft, *, final: bool
    ) -> tuple[tuple[TokenEvent, ...], tuple[TokenEvent, ...]]:
        """The round's tokens, and its discarded drafts (those after the first rejection)."""
        stream = self._run.stream
        events: list[TokenEvent] = []
        discarded: tuple[TokenEvent, ...] = ()
        for d in decisions:
            piece = self.target.piece(d.token_id)
            rejected = d.status is TokenStatus.REJECTED
            if rejected:
                discarded = self._discarded(draft, d.position, piece)
            text = stream.peek(piece) if rejected else stream.push(piece)
            plain = d.status is TokenStatus.PLAIN
            events.append(
                TokenEvent(
                    token_id=d.token_id,
                    text=text,
                    status=d.status,
                    position=None if plain else d.position,
                    p=d.p,
                    q=d.q,
                    u=d.u,
                    residual=d.residual,
                    residual_p=d.residual_p,
                )
            )
        if final and events:
            rest = stream.flush()
            if rest:
                last = next(i for i in range(len(events) - 1, -1, -1) if events[i].emitted)
                e = events[last]
                events[last] = replace(e, text=e.text + rest)
        return tuple(events), discarded

    def _discarded(self, draft: Draft, rejected_at: int, rejected_piece: bytes) -> tuple[TokenEvent, ...]:
        """Drafts after the rejected one, with their text as it would have continued and their q."""
        rest = discarded_after(draft.tokens, rejected_at, draft.q_values)
        if not rest:
            return ()
        pieces = [rejected_piece, *(self.target.piece(d.token_id) for d in rest)]
        texts = self._run.stream.peek_run(pieces)[1:]
        return tuple(
            TokenEvent(d.token_id, text, d.status, d.position, d.p, d.q) for d, text in zip(rest, texts, strict=True)
        )

    def _decode_s(self) -> float:
        return self.target.decode_s + (0.0 if self.drafter is None else self.drafter.decode_s)


def _stop_at_eog(draft: Draft, target: ModelRunner) -> Draft:
    """Never draft past an end-of-generation token (as llama.cpp does)."""
    for i, tok in enumerate(draft.tokens[:-1]):
        if target.is_eog(tok):
            n = i + 1
            rows = None if draft.q_rows is None else draft.q_rows[:n]
            return Draft(draft.tokens[:n], draft.q_values[:n], rows, draft.source, draft.q_top[:n])
    return draft
