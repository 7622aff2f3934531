"""What `specview doctor --prometheus URL` sees: one Observation per instance Prometheus scrapes.

It asks Prometheus once, through the watch's own source (features/watch/source/prometheus.py,
`prometheus_fleet_of`: `--match` and the credential flags as `watch --prometheus` takes them), for
the last `--window` seconds: each instance's counters at its last scrape before the window began
and at its latest, folded by the same WatchModel with the same counter checks. Nothing waits: the
window is one Prometheus already holds. The history (the retention, RETENTION_S) gives the counts
"since" that `off` needs; a doctor reading through Prometheus says so in its confidence.

Prometheus holds /metrics only: a server's /props and /slots (its method, its configured γ, whether
a drafter is loaded) cannot be read through it. The method is then "cannot tell" (`via` says why),
γ is the number of per-position series, and no probe can be sent (the instances' addresses are
Prometheus's labels, not URLs specview was given).
"""

from __future__ import annotations

import argparse

from specview.backends.remote.registry import kind_by_id
from specview.backends.remote.timeouts import Timeouts
from specview.features.doctor.observe import Observation
from specview.features.watch.model import Scrape
from specview.features.watch.model.fleet import InstanceReading, State
from specview.texts.catalog import Phrase

VIA = "prometheus"
RETENTION_S = 600.0  # how far back "zero drafts" looks


def observe_prometheus(args: argparse.Namespace, window_s: float, timeouts: Timeouts) -> list[Observation]:
    """Every instance's Observation over the last `window_s` seconds (BackendError: Prometheus failed)."""
    from specview.features.watch.source.prometheus import prometheus_fleet_of

    asked = argparse.Namespace(**vars(args))
    asked.interval, asked.retention = window_s, max(window_s, RETENTION_S)
    fleet = prometheus_fleet_of(asked, timeouts)
    try:
        readings = fleet.poll()
    finally:
        fleet.close()
    return [of_reading(r, window_s) for r in readings]


def of_reading(reading: InstanceReading, window_s: float) -> Observation:
    """One instance's reading as doctor's Observation: the window's sample as the totals, and two
    Scrapes that hold what the rules read of the counters (tokens over the window, drafts over all
    that was seen)."""
    kind = kind_by_id(reading.engine or "")
    sample = reading.sample
    obs = Observation(reading.instance, reading.engine or "generic", reading.method, None, False,
                      sample.dt if sample is not None else window_s, prefix=kind.metrics_prefix if kind else None,
                      tokens_source=kind.tokens_counter if kind else None, via=VIA)
    if reading.state is State.DOWN:
        obs.errors.append(Phrase("doctor.prometheus.down", instance=reading.instance, why=reading.error or "—"))
        return obs
    seen = [*reading.history, *([sample] if sample is not None else [])]
    obs.samples = len(seen)
    if not seen:
        return obs
    before = sum(s.tokens or 0 for s in reading.history)
    has_tokens = any(s.tokens is not None for s in seen)
    last = seen[-1]
    obs.first = Scrape(last.t - last.dt, tokens=before if has_tokens else None)
    per_position = _summed([s.per_position for s in seen]) or _width(reading.gamma)
    obs.last = Scrape(last.t, drafts=sum(s.drafts for s in seen), draft_tokens=sum(s.draft_tokens for s in seen),
                      accepted=sum(s.accepted for s in seen), per_position=per_position,
                      tokens=before + (sample.tokens or 0) if has_tokens and sample is not None else None,
                      gauges=dict(last.gauges), cadence=last.cadence)
    obs.totals = sample
    said: set[str] = set()
    for s in seen:  # one line per broken rule
        for v in s.violations:
            if v.rule not in said:
                said.add(v.rule)
                values = ", ".join(f"{k} {n}" for k, n in v.values.items())
                obs.set_aside.append(Phrase("doctor.set_aside_text.counters", url=obs.url,
                                            rule=Phrase(f"watch.rule.{v.rule}"), values=values))
    return obs


def _summed(series: list[tuple[int, ...]]) -> tuple[int, ...]:
    width = max((len(s) for s in series), default=0)
    return tuple(sum(s[k] for s in series if k < len(s)) for k in range(width))


def _width(gamma: int | None) -> tuple[int, ...]:
    return (0,) * gamma if gamma else ()
