"""`--gamma auto`: the local loop's γ, re-chosen from the run's own costs and acceptance.

What it measures: the conditional acceptance at each draft position (counted from every
drafting round's verdict), c (the draft time per drafted token ÷ the calibration's 1-token
forward) and v(k) (the calibration's k-token forwards). The choice itself is
kernel/gamma_choice.py's argmax of the expected speedup; here is only when to decide and what
to do while speculation is off:

- It decides every round until position 1 has MIN_VERDICTS verdicts (MIN_VERDICTS_OFF before a
  low acceptance may turn it off; the costs alone may say no sooner), then every DECIDE_EVERY
  rounds and after every calibration (the engine calibrates again every 64 rounds and whenever
  the context grew by 256 tokens, so a change in load or in attention cost reaches the choice
  within that many rounds). The costs are the mean of the last CALIBRATIONS calibrations.
- The counts are halved once position 1 has KEEP verdicts, so the estimate follows the text
  (a repetitive passage and free prose accept very differently) instead of the run's average.
- γ 0 (off) because even an always-accepted draft loses (NEVER: the costs alone forbid it)
  drafts nothing until a calibration says the costs changed: probing could not change the verdict.
  Before the first draft, c is the calibration's: one draft step's forward ÷ the target's
  1-token forward (DraftCosts), so a draft model that cannot pay is never run at all.
- γ 0 because trying costs more than it could win (SHORT): a draft model's first draft (and the
  first after a pause) evaluates every committed token it has not seen — the whole prompt at the
  start, ≈ 0.7 s for the demo's 208 tokens on 2 CPU threads, as much as 20 plain steps — and
  learning drafts MIN_VERDICTS_OFF rounds before a low acceptance may turn it off. That is
  weighed against the most the tokens left could save at the ceiling speedup (acceptance 1);
  when it loses, drafting is not tried until a calibration says otherwise (it cannot: the tokens
  left only fall). N-gram lookup has nothing to catch up on and is always tried.
- While off for good (NEVER, SHORT) it is `settled`: the engine skips the every-64-rounds
  recalibration (forwards of up to 9 tokens, ≈ 3 s on 2 threads, more than those 64 plain
  rounds) and calibrates again only as the context grows.
- A calibration taken while the machine was busy (kernel/contended.py: a k-token forward timed
  cheaper than a 1-token one, plain steps that disagree, by the calibration's own repeats) is set
  aside (BUSY, said in the stream): the costs, γ and the draft's costs stay what the calibrations
  before it said, so a choice never rests on a disturbed one; the engine calibrates again soon
  (engine.py: RETRY_AFTER).
- A round whose draft began with such a catch-up is not timed into c: its draft time is the
  context's prefill, not what a draft step costs (it read c ≈ 6 instead of 0.5 on the pair).
- γ 0 because the measured acceptance is too low (LOSES) probes: after PROBE_AFTER plain rounds
  it drafts PROBE_ROUNDS rounds at the least-losing γ and decides again. Each probe that finds
  speculation still losing doubles the wait (up to PROBE_AFTER_MAX rounds), so a text that never
  pays costs at most PROBE_ROUNDS / PROBE_AFTER_MAX of its rounds at a loss; a probe that pays
  resets it. 32 rounds is about a sentence or two: a change of passage is noticed soon.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from specview.backends.local.drafters import DraftCosts
from specview.kernel.contended import calibration_contended
from specview.kernel.events import Calibration
from specview.kernel.gamma_choice import AUTO_MAX_GAMMA, GammaChoice, Why, best_of, choose, expected_speedups
from specview.kernel.theory import VerifyRatio, verify_ratio
from specview.texts.catalog import Phrase

START_GAMMA = 4  # before the first calibration: the usual default γ (after it, auto learns at the γ the
# costs favour if every draft were accepted: on this CPU 4 is one of the dear odd-width verifies)
DECIDE_EVERY = 8
POOL_UNTIL = 16  # verdicts at position 1 before each position's acceptance stands on its own
MIN_VERDICTS = 2  # drafting rounds before the acceptance counts (until then: LEARNING, deciding every round)
MIN_VERDICTS_OFF = 8  # and before a low acceptance may turn speculation off
KEEP = 64
PROBE_AFTER = 32
PROBE_AFTER_MAX = 512
PROBE_ROUNDS = 4
CALIBRATIONS = 4  # the costs are the mean of the last 4 calibrations (3 timings each: one is noisy on a busy CPU)


class AutoGamma:
    """The engine's γ policy for `--gamma auto` (the same face as drafters.AdaptiveGamma)."""

    def __init__(self, start: int = START_GAMMA, *, decide_every: int = DECIDE_EVERY) -> None:
        self.low = 0
        self.high = AUTO_MAX_GAMMA
        self.value = min(max(start, 0), self.high)
        self.decide_every = decide_every
        self._verified = [0.0] * self.high
        self._accepted = [0.0] * self.high
        self._draft_s = 0.0
        self._drafts = 0.0
        self._calibrations: deque[tuple[float, ...]] = deque(maxlen=CALIBRATIONS)
        self._costs: tuple[float, ...] = ()
        self._plain_s: float | None = None
        self._draft: DraftCosts | None = None
        self._drafted_last = False  # the previous round drafted: this one's drafter has nothing to catch up on
        self._rounds = 0
        self._since_decision = 0
        self._off = 0  # plain rounds since speculation went off or the last probe
        self._probe_after = PROBE_AFTER
        self._probing = 0  # probe rounds left
        self.choice = GammaChoice(0, self.value, Why.LEARNING)
        self._pending: list[GammaChoice] = [self.choice]
        self._report_next = False  # a calibration was set aside since the last reported decision

    # what the engine tells it --------------------------------------------------------
    def update(self, drafted: int, accepted: int, draft_s: float | None = None) -> None:
        """One round's verdict: `drafted` drafts, the first `accepted` of them accepted, drafted in `draft_s`."""
        self._rounds += 1
        self._since_decision += 1
        if drafted:
            self._count(drafted, accepted, draft_s if self._drafted_last else None)
            if self._draft is not None and self._draft.behind:  # caught up now: a sunk cost
                self._draft = replace(self._draft, behind=0)
        self._drafted_last = drafted > 0
        if self._probing:
            self._probing -= 1
            if not self._probing:
                self._end_probe()
            return
        if self.value == 0:
            self._off += 1
            if self.choice.why is Why.LOSES and self._off >= self._probe_after:
                self._start_probe()
            return
        if self._since_decision >= self.decide_every or self.choice.why is Why.LEARNING:
            self.decide()

    def calibrated(self, cal: Calibration, draft: DraftCosts | None = None) -> None:
        """A fresh calibration: new v(k), a new 1-token cost and drafting's costs; decide again at once.
        One taken while the machine was busy is set aside instead (BUSY): γ and the costs stay."""
        busy = calibration_contended(cal)
        if busy is not None:
            self._set_aside(busy)
            return
        self._plain_s = cal.plain_s
        self._draft = draft
        if cal.verify_costs_s:
            self._calibrations.append(cal.verify_costs_s)
            self._costs = _mean_costs(self._calibrations)
        if not self._probing:
            self.decide(always=self.choice.why is not Why.LEARNING)

    def _set_aside(self, busy: Phrase) -> None:
        """Keep γ and every cost as they were, and say why."""
        # said, not adopted: the decision in force (and what it steers: probing, settling) stays, and
        # the next decision is reported even if unchanged, so the note does not stay on "busy"
        self._pending.append(replace(self.choice, round=self._rounds, why=Why.BUSY, busy=busy))
        self._report_next = True

    @property
    def settled(self) -> bool:
        """Off for good (NEVER, SHORT): only a calibration as the context grows can change that."""
        return self.value == 0 and self.choice.why in (Why.NEVER, Why.SHORT)

    def take(self) -> list[GammaChoice]:
        """The decisions made since the last call (the backend yields them into the stream)."""
        out, self._pending = self._pending, []
        return out

    # the decision --------------------------------------------------------------------
    def acceptance(self) -> list[float]:
        """Conditional acceptance per position as far as measured, with Jeffreys' prior ((a + ½) / (n + 1)).

        A prior keeps two lucky verdicts from reading as certainty; Laplace's (a + 1) / (n + 2)
        weighs twice as much and, on the few verdicts a short run has, reads a copy task's ≈ 1 as
        0.8–0.9, which τ compounds over γ positions and so picks too short a γ.
        """
        out = []
        for verified, accepted in zip(self._verified, self._accepted, strict=True):
            if verified <= 0:
                break
            out.append((accepted + 0.5) / (verified + 1.0))
        if self._verified[0] < POOL_UNTIL and out:
            # a few rounds in, each position has a handful of verdicts and its own prior would pull a
            # copy task's ≈ 1 down to 0.83 at every depth, which τ compounds into too short a γ: until
            # position 1 has POOL_UNTIL verdicts, every measured position reads the pooled acceptance
            pooled = (sum(self._accepted) + 0.5) / (sum(self._verified) + 1.0)
            out = [pooled] * len(out)
        return out

    def draft_cost(self) -> float | None:
        """c: seconds per drafted token ÷ the calibrated 1-token forward; before a draft was
        timed, the calibrated draft step ÷ the same (None before both)."""
        if not self._costs:
            return None
        if self._drafts > 0:
            return self._draft_s / self._drafts / self._costs[0]
        step = None if self._draft is None else self._draft.step_s
        return None if step is None else step / self._costs[0]

    def decide(self, *, always: bool = False) -> GammaChoice:
        """Choose γ from the numbers so far; record the choice when it changed (or `always`)."""
        self._since_decision = 0
        choice = self._choose()
        changed = (choice.gamma, choice.why) != (self.choice.gamma, self.choice.why)
        if choice.gamma == 0 and self.value != 0:
            self._off = 0
        self.value = choice.gamma
        self.choice = choice
        if changed or always or self._report_next:
            self._pending.append(choice)
            self._report_next = False
        return choice

    def _choose(self) -> GammaChoice:
        costs = self._costs

        def v(gamma: int) -> float | None:
            return verify_ratio(costs, gamma)

        c = self.draft_cost()
        if not costs:
            return GammaChoice(self._rounds, self.value, Why.LEARNING)
        # the costs alone can say no before any verdict: even always accepted drafts (free ones
        # before a draft was timed) lose at every γ
        ceiling = expected_speedups([1.0], 0.0 if c is None else c, v)
        if best_of(ceiling) == 0:
            return GammaChoice(self._rounds, 0, Why.NEVER, ceiling, c)
        learn = best_of(ceiling)  # learn where drafting would pay most if it were all accepted
        if self._trying_loses(max(ceiling), c, v, learn):
            return GammaChoice(self._rounds, 0, Why.SHORT, ceiling, c)
        if c is None or self._verified[0] < MIN_VERDICTS:
            return GammaChoice(self._rounds, learn, Why.LEARNING)
        choice = choose(self.acceptance(), c, v, at_round=self._rounds)
        if choice.why is Why.LOSES and self._verified[0] < MIN_VERDICTS_OFF:
            # off means PROBE_AFTER rounds without a verdict: too dear to risk on a couple of them
            return GammaChoice(self._rounds, self.value or learn, Why.LEARNING)
        return choice

    def _trying_loses(self, ceiling: float, c: float | None, v: VerifyRatio, learn: int) -> bool:
        """Trying costs at least what the tokens left could save at the ceiling speedup. Trying
        is the drafter's catch-up (its `behind` tokens at c times the target's prefill per token)
        and the MIN_VERDICTS_OFF rounds at the learning γ it must draft before it may turn off
        again, each at its loss should nothing be accepted (γc + v(γ) plain steps for one token)."""
        draft, plain_s = self._draft, self._plain_s
        if draft is None or not draft.behind or draft.prefill_s is None or c is None or plain_s is None:
            return False
        catch_up_s = draft.behind * c * draft.prefill_s
        ratio = v(learn)
        learning_s = 0.0 if ratio is None else MIN_VERDICTS_OFF * plain_s * max(0.0, learn * c + ratio - 1.0)
        most_saved_s = draft.left * plain_s * (1.0 - 1.0 / ceiling)
        return catch_up_s + learning_s >= most_saved_s

    # while off -----------------------------------------------------------------------
    def _start_probe(self) -> None:
        speedups = self.choice.speedups
        gamma = max(range(1, len(speedups)), key=lambda g: (speedups[g], -g)) if len(speedups) > 1 else 1
        self._probing = PROBE_ROUNDS
        self.value = gamma
        self.choice = GammaChoice(self._rounds, gamma, Why.PROBE, speedups, self.choice.c, self.choice.acceptance)
        self._pending.append(self.choice)

    def _end_probe(self) -> None:
        choice = self.decide(always=True)
        self._off = 0
        self._probe_after = PROBE_AFTER if choice.gamma else min(PROBE_AFTER_MAX, 2 * self._probe_after)

    def _count(self, drafted: int, accepted: int, draft_s: float | None) -> None:
        """Position k (1-based) was verified when the k − 1 before it were accepted."""
        depth = min(drafted, self.high)
        for k in range(min(accepted + 1, depth)):
            self._verified[k] += 1
        for k in range(min(accepted, depth)):
            self._accepted[k] += 1
        if draft_s is not None:
            self._draft_s += draft_s
            self._drafts += drafted
        if self._verified[0] >= KEEP:  # forget half: the estimate follows the text as it changes
            self._verified = [n / 2 for n in self._verified]
            self._accepted = [n / 2 for n in self._accepted]
            self._draft_s /= 2
            self._drafts /= 2


def _mean_costs(calibrations: deque[tuple[float, ...]]) -> tuple[float, ...]:
    """Each k's mean cost over the calibrations that timed it (ending at the first k one of them lacks)."""
    depth = min(len(costs) for costs in calibrations)
    return tuple(sum(costs[k] for costs in calibrations) / len(calibrations) for k in range(depth))
