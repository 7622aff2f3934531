"""Doctor's findings on load and context: acceptance and tokens/s per level of running requests,
and acceptance against the context's length.

- `load`: the window's polls placed by the engine's running-requests gauge (watch/model/by_load.py,
  the same table `watch` keeps): α and tokens/s per level. Where the speedup was measured against
  a plain server (`--off URL`: the same probes, as many at once, on both), each level's speedup is
  estimated as that speedup × (tokens/s per request at the level ÷ at the lowest level seen), both
  from the same counters; the first level where it falls below 1× is the crossover. A plain server
  loses speed under load too, which this does not see (it has the probes' plain speed only): the
  crossover is early, said in the confidence.
- `context`: a local run folds its rounds by context position (kernel/context_acceptance.py):
  α per bucket, and whether it decays. No server here exports acceptance by context position:
  vLLM's and llama-server's per-position counters count positions inside a draft, and
  llama-server's /slots gives a slot's context only while it runs. So for a server it is
  "cannot tell", with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from specview.features.doctor.finding import HIGH, LOW, MEDIUM, OK, WARN, DoctorFinding, Evidence, told
from specview.features.doctor.observe import Observation
from specview.texts.catalog import Phrase, fill

MAX_LEVELS_SAID = 6  # levels in the finding's sentence (the evidence has them all)


@dataclass(frozen=True, slots=True)
class Joined:
    """Phrases said one after another in the asked language (a finding's field: catalog.fill renders it)."""

    parts: tuple[Phrase, ...]

    def in_language(self, lang: str) -> str:
        return fill("doctor.list_sep", lang).join(p.render(lang) for p in self.parts)


def _f(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def load(obs: Observation) -> DoctorFinding | None:
    """α and tokens/s per running requests; None where the engine has no running-requests gauge."""
    table = obs.by_load
    if table is None or table.gauge is None:
        return None
    rows = table.rows()
    if not rows:
        return DoctorFinding("load_none", OK, LOW, "load_idle", {"gauge": table.gauge},
                             (Evidence("unplaced", table.unplaced, told("unplaced")),))
    evidence: list[Evidence] = []
    for row in rows:
        source = told("level_windows", gauge=table.gauge, level=row.level, windows=row.windows)
        evidence += [Evidence(f"alpha_at_{row.level}", row.alpha, source),
                     Evidence(f"tokens_per_s_at_{row.level}", row.tokens_per_s, source),
                     Evidence(f"per_request_at_{row.level}", row.tokens_per_s_per_request, source)]
    said = Joined(tuple(Phrase("doctor.load_level", level=row.level, alpha=_f(row.alpha), tps=_f(row.tokens_per_s, 1),
                               per=_f(row.tokens_per_s_per_request, 1)) for row in rows[:MAX_LEVELS_SAID]))
    fields: dict[str, object] = {"levels": said, "n": len(rows)}
    measured = _speedup(obs)
    one = rows[0]  # the lowest level seen: the reference the others are scaled from
    if measured is None or not one.tokens_per_s_per_request:
        level, reason = (MEDIUM, "load_levels") if len(rows) >= 2 else (LOW, "load_one_level")
        return DoctorFinding("load", OK, level, reason, fields, tuple(evidence))
    # the measured speedup (one request on each side) scaled by how the tokens/s per request of
    # this server falls with load: the same basis at every level (the window's counters)
    estimates = {row.level: measured * (row.tokens_per_s_per_request or 0.0) / one.tokens_per_s_per_request
                 for row in rows}
    evidence.append(Evidence("speedup_measured", measured, told("ratio", a=obs.speed_on_source,
                                                                 b=obs.baseline_source)))
    evidence += [Evidence(f"speedup_estimated_at_{n}", v, told("scaled", n=n, ref=one.level))
                 for n, v in estimates.items()]
    below = [n for n, v in estimates.items() if v < 1.0]
    fields["speedup"], fields["ref"] = f"{measured:.2f}", one.level
    if below:
        fields["crossover"], fields["estimate"] = below[0], f"{estimates[below[0]]:.2f}"
        return DoctorFinding("load_crossover", WARN, LOW, "load_single_baseline", fields, tuple(evidence))
    fields["estimate"] = f"{min(estimates.values()):.2f}"
    return DoctorFinding("load_pays", OK, LOW, "load_single_baseline", fields, tuple(evidence))


def _speedup(obs: Observation) -> float | None:
    """The measured speedup of one request (--off's probes, a local run and its plain run)."""
    if obs.speed_on is None or not obs.baseline_tps:
        return None
    return obs.speed_on / obs.baseline_tps


def context(obs: Observation) -> DoctorFinding:
    """α against context position (a local run's buckets), else "cannot tell" and why."""
    ctx = obs.context
    if ctx is None or not obs.local:
        return DoctorFinding("context_unknown", OK, HIGH, "context_not_exported", {"engine": obs.engine})
    buckets = [b for b in ctx.buckets if b.verified > 0]
    evidence = [Evidence(f"alpha_{b.start}_{b.end}", b.alpha,
                         told("context_bucket", verified=b.verified, start=b.start, end=b.end)) for b in buckets]
    if len(buckets) < 2:
        return DoctorFinding("context_short", OK, LOW, "context_one_bucket", {"width": ctx.width}, tuple(evidence))
    decay = ctx.decay()
    said = "; ".join(f"{b.start}–{b.end}: α {_f(b.alpha)}" for b in buckets[:MAX_LEVELS_SAID])  # numbers only
    if decay is not None and decay.detected:
        return DoctorFinding("context_decay", WARN, MEDIUM, "context_buckets",
                             {"buckets": said, "drop": f"{decay.drop:.2f}"}, tuple(evidence))
    return DoctorFinding("context_flat", OK, MEDIUM, "context_buckets", {"buckets": said}, tuple(evidence))
