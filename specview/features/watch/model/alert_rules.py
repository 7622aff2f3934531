"""When a fleet alert fires: the thresholds (flags, the config's `[watch.alerts]`) and the tests.

Each test reads an instance's alert window — its samples over the last `window_s` seconds,
summed (`over_time`) — and, for the α drop, the window before it. A test that lacks evidence
(fewer than `min_drafts` drafts in a window) does not fire: a quiet server is not a broken one.

- not working: drafting (≥ `min_drafts` drafts), and α = 0 (nothing accepted) or the mean
  accepted length below `min_accept_length` (1.05: a draft accepted one time in twenty);
  SGLang, which publishes only gauges, by its own `spec_accept_length` gauge while it decodes.
- α drop: α of the window before minus α of the last window above `alpha_drop`.
- down / stalled: the instance's state (stalled: answers, counters unchanged while requests
  run, for `stall_polls` polls in a row).
- slower: tokens/s per running request below `baseline_tokens_per_s`, the single-request speed
  measured without speculation (only where the user gives one: specview measures none here).
"""

from __future__ import annotations

from dataclasses import dataclass

from specview.features.watch.model import WatchSample
from specview.features.watch.model.fleet import AlertKind, Said, State

SGLANG_ACCEPT_LENGTH = "sglang:spec_accept_length"


@dataclass(frozen=True, slots=True)
class AlertRules:
    """The thresholds; every field has a flag and a `[watch.alerts]` key of the same name."""

    window_s: float = 30.0  # the alert window: tests read this much history, hooks run once per window
    min_accept_length: float = 1.05
    alpha_drop: float = 0.15  # absolute: 0.70 → 0.55 fires
    min_drafts: int = 20  # evidence a window needs before α says anything
    stall_polls: int = 2
    baseline_tokens_per_s: float | None = None  # per request, without speculation (None: no test)
    outlier_p: float = 0.001  # an α this unlikely under the fleet's pooled α is an outlier…
    outlier_gap: float = 0.05  # …and at least this far from it (a big window makes tiny gaps "significant")


Values = dict[str, float | Said]  # an alert's data; the down alert's error is Said


def over_time(samples: list[WatchSample]) -> WatchSample | None:
    """Successive samples of one instance as one: counts summed, the last running count.
    (One pass: the fleet folds two windows of every instance each poll.)"""
    if not samples:
        return None
    dt = 0.0
    drafts = draft_tokens = accepted = 0
    per_position: list[int] = []
    tokens: int | None = None
    reset = False
    beyond = 0  # position series left unread: α stays on the counts where any window had some
    for s in samples:
        dt += s.dt
        drafts += s.drafts
        draft_tokens += s.draft_tokens
        accepted += s.accepted
        if len(s.per_position) > len(per_position):
            per_position.extend([0] * (len(s.per_position) - len(per_position)))
        for k, count in enumerate(s.per_position):
            per_position[k] += count
        if s.tokens is not None:
            tokens = s.tokens + (tokens or 0)
        reset = reset or s.reset
        beyond = max(beyond, s.positions_beyond)
    last = samples[-1]
    return WatchSample(last.t, dt, drafts, draft_tokens, accepted, tuple(per_position), tokens, last.active,
                       reset, gauges=dict(last.gauges), positions_beyond=beyond)


def accept_length(sample: WatchSample | None) -> float | None:
    """Tokens per verify step: from the counters, else SGLang's own gauge."""
    if sample is None:
        return None
    measured = sample.mean_accepted_length
    return measured if measured is not None else sample.gauges.get(SGLANG_ACCEPT_LENGTH)


def firing(state: State, window: WatchSample | None, before: WatchSample | None, rules: AlertRules,
           stalled_s: float | None = None, error: Said | None = None) -> dict[AlertKind, Values]:
    """The alerts this instance raises now, each with the numbers behind it."""
    found: dict[AlertKind, Values] = {}
    if state is State.DOWN:
        found[AlertKind.DOWN] = {"error": error or ""}
        return found
    if state is State.STALLED:
        found[AlertKind.STALLED] = {"seconds": round(stalled_s or 0.0, 1),
                                    "running": (window.active or 0) if window else 0}
    if window is None:
        return found
    if (not_working := _not_working(window, rules)) is not None:
        found[AlertKind.NOT_WORKING] = not_working
    if (dropped := _alpha_drop(window, before, rules)) is not None:
        found[AlertKind.ALPHA_DROP] = dropped
    if (slower := _slower(window, rules)) is not None:
        found[AlertKind.SLOWER] = slower
    return found


def _not_working(window: WatchSample, rules: AlertRules) -> Values | None:
    length = accept_length(window)
    if window.drafts >= rules.min_drafts:
        if window.accepted == 0 or (length is not None and length < rules.min_accept_length):
            return {"alpha": round(window.alpha or 0.0, 4), "accept_length": round(length or 1.0, 4),
                    "drafts": window.drafts, "threshold": rules.min_accept_length}
    elif (window.draft_tokens == 0 and SGLANG_ACCEPT_LENGTH in window.gauges and (window.tokens or 0) > 0
          and length is not None and length < rules.min_accept_length):  # SGLang: gauges only
        return {"alpha": "", "accept_length": round(length, 4), "drafts": "", "threshold": rules.min_accept_length}
    return None


def _alpha_drop(window: WatchSample, before: WatchSample | None, rules: AlertRules) -> Values | None:
    if before is None or min(window.drafts, before.drafts) < rules.min_drafts:
        return None
    now, then = window.alpha, before.alpha
    if now is None or then is None or then - now <= rules.alpha_drop:
        return None
    return {"before": round(then, 4), "after": round(now, 4), "drop": round(then - now, 4),
            "threshold": rules.alpha_drop}


def _slower(window: WatchSample, rules: AlertRules) -> Values | None:
    baseline = rules.baseline_tokens_per_s
    running = window.active or 0
    tps = window.tokens_per_s
    if baseline is None or running <= 0 or tps is None or window.drafts <= 0:
        return None
    per_request = tps / running
    if per_request >= baseline:
        return None
    return {"per_request": round(per_request, 2), "baseline": baseline, "running": running}
