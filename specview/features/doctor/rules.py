"""The rules of `specview doctor`: an Observation in, Findings out (pure; no server is asked).

- `speculation`: on or off, which method and γ; a drafter that drafts nothing while tokens are made.
- `pays`: α, yield and τ in the window; the measured speedup and the implied draft cost c where a
  baseline is known (`--baseline-tps` with probe timings), else the α a speedup needs at an assumed c.
- `which_gamma`: the marginal per-position acceptance, each position's gain, and the γ that theory
  (kernel/theory.py's `speedup_of_tau`, the one formula) says is best at that c.
- `numbers`: each engine's definition of "acceptance" side by side, with the values.
- `checks`: what was set aside because it failed a check, what stopped answering, probes that failed,
  a /props too large to read.
- the per-request spread of the probes' acceptance (per_request.py): built on their own answers'
  counts, each checked apart from the counters, so it stands when the counters are set aside.
- verification.py: a lossy rule (vLLM `fly`, `synthetic`), where a draft's vocabulary shows;
  load_context.py: α and tokens/s per running requests, α against the context's length.

A counter that broke an invariant (watch/model: accepted ≤ drafted, Σ per-position = accepted, …)
sets every counter-based finding aside: none is built on it.
"""

from __future__ import annotations

from collections.abc import Sequence

from specview.features.doctor.finding import HIGH, LOW, MEDIUM, OK, PROBLEM, WARN, DoctorFinding, Evidence, told
from specview.features.doctor.flags import DEFAULT_GAMMA, SET_GAMMA, TURN_ON, flag
from specview.features.doctor.load_context import context, load
from specview.features.doctor.observe import Observation
from specview.features.doctor.per_request import findings as spread_findings
from specview.features.doctor.verification import lossy, props_large, vocab_remote
from specview.kernel.gamma_choice import best_of
from specview.kernel.theory import alpha_for_tau, implied_c, speedup_of_tau
from specview.texts.catalog import Phrase

ASSUMED_C_NGRAM = 0.02  # an n-gram lookup costs next to nothing beside a target forward
ASSUMED_C_MODEL = 0.1  # a small draft model's step, a tenth of the target's (the usual pairing)
FEW_DRAFTS = 30  # fewer drafts in the window: per-position numbers are only a hint
DIFFER = 0.10  # α and the engines' acceptance rate differ by more than this share: said
BETTER = 0.05  # another γ must beat the current one by this share to be recommended


def diagnose(obs: Observation, baseline_tps: float | None = None) -> list[DoctorFinding]:
    """Every finding for one server, in the order they are shown."""
    found = list(checks(obs))
    if obs.last is None and obs.errors:  # nothing was read: nothing is concluded
        return found
    trusted = not any(s.key == "doctor.set_aside_text.counters" for s in obs.set_aside)
    said = speculation(obs, trusted)
    found.append(said)
    found += [f for f in (lossy(obs), vocab_remote(obs, said.id)) if f is not None]
    if trusted and obs.totals is not None and obs.totals.drafts > 0:
        c, c_measured = draft_cost(obs, baseline_tps)
        found.append(pays(obs, baseline_tps))
        gamma = which_gamma(obs, c, c_measured)
        if gamma is not None:
            found.append(gamma)
        found.append(numbers(obs))
    if trusted and said.id in ("on", "idle"):  # load and context: of a server that speculates
        found += [f for f in (load(obs), context(obs)) if f is not None]
    found += spread_findings(obs.probes)  # the probes' own counts, checked apart from the counters
    return found


def _metric(obs: Observation, name: str) -> Phrase | str:
    if obs.local:  # a local run's own counts, named as the servers' counters are
        return told("local_metric", name=name)
    return f"{obs.prefix}:{name}" if obs.prefix else name


def is_ngram(obs: Observation) -> bool:
    method = (obs.method or "").lower()
    return "n-gram" in method or "ngram" in method


def finished_tokens(obs: Observation) -> int | None:
    """Generated tokens the counter gained in the window, without the tokens of requests still
    running (llama-server's draft counters, like its token counter, move only when a request ends:
    comparing them with tokens in flight would find drafts missing that are only late). None where
    the server has no token counter or it went back (a restart)."""
    first, last = obs.first, obs.last
    if first is None or last is None or first.tokens is None or last.tokens is None or last.tokens < first.tokens:
        return None
    return last.tokens - first.tokens


def gamma_of(obs: Observation) -> tuple[int | None, Phrase | str]:
    """γ as the server says it (detection), else the number of per-position series; with its basis."""
    if obs.gamma:
        return obs.gamma, told("longest_draft" if obs.local else "server")
    if obs.last is not None and obs.last.per_position:
        return len(obs.last.per_position), _metric(obs, "spec_decode_num_accepted_tokens_per_pos_total")
    return None, ""


def speculation(obs: Observation, trusted: bool = True) -> DoctorFinding:
    """On or off, and a drafter that drafts nothing."""
    last, window = obs.last, obs.totals
    drafted_source = _metric(obs, "spec_decode_num_draft_tokens_total")
    has_counters = last is not None and last.draft_tokens is not None and trusted
    drafted_ever = last.draft_tokens if has_counters and last is not None else None
    made = finished_tokens(obs)
    evidence = [Evidence("engine", obs.engine, told("detection")), Evidence("method", obs.method, "/props, /slots")]
    if obs.local:
        evidence = [Evidence("engine", "llama.cpp", told("local_run")), Evidence("method", obs.method, "--draft")]
    method: object = obs.method or "—"
    if obs.via is not None:  # Prometheus holds /metrics only
        evidence[1] = Evidence("method", None, told("method_unread"))
        method = Phrase("doctor.method_unread")
    if has_counters:
        held = told("held", metric=drafted_source) if obs.via is not None else drafted_source
        evidence.append(Evidence("drafted_total", drafted_ever, held))
    if window is not None and trusted:
        evidence += [Evidence("drafted_in_window", window.draft_tokens, drafted_source),
                     Evidence("tokens_in_window", made, obs.tokens_source or "—")]
    gamma, basis = gamma_of(obs)
    if gamma is not None:
        evidence.append(Evidence("gamma", gamma, basis))
    on_flag = flag(TURN_ON, obs.engine, DEFAULT_GAMMA)
    sglang_gauges = last is not None and any("spec_" in g for g in last.gauges)
    if not trusted:
        level, reason = LOW, "counters_set_aside"
        return DoctorFinding("on" if obs.speculating else "off", OK if obs.speculating else WARN, level, reason,
                       {"method": method, "gamma": gamma or "—"}, tuple(evidence),
                       None if obs.speculating else on_flag)
    if obs.prefix is None and not sglang_gauges and not obs.speculating:
        return DoctorFinding("unknown", WARN, LOW, "no_family", {"engine": obs.engine}, tuple(evidence))
    if not obs.speculating and not sglang_gauges and (drafted_ever is None or drafted_ever == 0):
        reason = "no_counters" if drafted_ever is None else "zero_drafts"
        level = HIGH
        if obs.via is not None and drafted_ever is not None:  # a drafter loaded and never used looks the same
            level, reason = MEDIUM, "zero_drafts_prometheus"
        return DoctorFinding("off", WARN, level, reason, {"engine": obs.engine}, tuple(evidence), on_flag)
    if window is not None and window.draft_tokens == 0 and (made or 0) > 0:
        never = drafted_ever == 0
        severity = WARN if is_ngram(obs) or not never else PROBLEM
        level = MEDIUM if is_ngram(obs) else HIGH
        return DoctorFinding("idle", severity, level, "ngram_idle" if is_ngram(obs) else "tokens_no_drafts",
                       {"method": method, "tokens": made}, tuple(evidence))
    if window is not None and window.draft_tokens > 0:
        return DoctorFinding("on", OK, HIGH, "drafts_seen", {"method": method, "gamma": gamma or "—"},
                       tuple(evidence))
    return DoctorFinding("on", OK, LOW, "no_traffic", {"method": method, "gamma": gamma or "—"},
                   tuple(evidence))


def measured_speedup(obs: Observation, baseline_tps: float | None) -> float | None:
    """The measured speed with speculation (`--off`'s or a local run's, else the probes' mean decode
    speed by the server's own timings) ÷ the baseline (`--baseline-tps`, else the measured plain
    one); None without both."""
    speeds = [p.tokens_per_s for p in obs.probes if p.tokens_per_s is not None]
    on = obs.speed_on if obs.speed_on is not None else (sum(speeds) / len(speeds) if speeds else None)
    base = baseline_tps or obs.baseline_tps
    if not on or not base:
        return None
    return on / base


def _speedup_source(obs: Observation, baseline_tps: float | None) -> Phrase:
    on = obs.speed_on_source if obs.speed_on is not None else told("probe_timings")
    base = "--baseline-tps" if baseline_tps else (obs.baseline_source or told("baseline"))
    return told("ratio", a=on, b=base)


def draft_cost(obs: Observation, baseline_tps: float | None) -> tuple[float, bool]:
    """c implied by the measured speedup (True), else the assumed one for the method (False)."""
    window = obs.totals
    s = measured_speedup(obs, baseline_tps)
    if s is not None and window is not None and window.drafts > 0 and window.mean_accepted_length is not None:
        c = implied_c(window.mean_accepted_length, window.draft_tokens / window.drafts, s)
        if c is not None:
            return c, True
    return (ASSUMED_C_NGRAM if is_ngram(obs) else ASSUMED_C_MODEL), False


def _rates(obs: Observation) -> list[Evidence]:
    w = obs.totals
    assert w is not None
    acc, drafted, drafts = (_metric(obs, f"spec_decode_num_{n}_total")
                            for n in ("accepted_tokens", "draft_tokens", "drafts"))
    basis = told(f"basis.{w.alpha_basis or 'none'}")
    return [Evidence("alpha", w.alpha, told("alpha", accepted=acc, basis=basis)),
            Evidence("yield", w.draft_yield, told("ratio", a=acc, b=drafted)),
            Evidence("tau", w.mean_accepted_length, told("tau", accepted=acc, drafts=drafts)),
            Evidence("drafts", w.drafts, drafts), Evidence("drafted", w.draft_tokens, drafted),
            Evidence("accepted", w.accepted, acc)]


def pays(obs: Observation, baseline_tps: float | None) -> DoctorFinding:
    """Does speculation pay in this window."""
    w = obs.totals
    assert w is not None and w.drafts > 0
    tau = w.mean_accepted_length or 1.0
    mean_gamma = w.draft_tokens / w.drafts
    evidence = _rates(obs)
    s = measured_speedup(obs, baseline_tps)
    if s is not None:
        c, _ = draft_cost(obs, baseline_tps)
        evidence += [Evidence("speedup", s, _speedup_source(obs, baseline_tps)),
                     Evidence("c_implied", c, told("theory"))]
        if obs.speed_on is not None and obs.baseline_tps is not None and not baseline_tps:
            evidence += [Evidence("tokens_per_s_on", obs.speed_on, obs.speed_on_source or told("measured")),
                         Evidence("tokens_per_s_off", obs.baseline_tps, obs.baseline_source or told("measured"))]
        why = "baseline_given" if baseline_tps else ("baseline_local" if obs.local else "baseline_off")
        return DoctorFinding("pays_measured", OK if s >= 1.0 else PROBLEM, MEDIUM, why,
                       {"speedup": f"{s:.2f}", "c": f"{c:.2f}", "tau": f"{tau:.2f}"}, tuple(evidence))
    c, _ = draft_cost(obs, None)
    gamma = max(1, round(mean_gamma))
    needed = alpha_for_tau(min(1.0 + gamma * c, gamma + 1.0), gamma)
    expected = speedup_of_tau(tau, gamma, c)
    evidence += [Evidence("c_assumed", c, told("assumed")), Evidence("alpha_needed", needed, told("theory")),
                 Evidence("expected_speedup", expected, told("theory_c_assumed"))]
    return DoctorFinding("pays_unknown", OK if expected >= 1.0 else WARN, LOW, "no_baseline",
                   {"c": f"{c:.2f}", "gamma": gamma, "needed": f"{needed:.2f}",
                    "alpha": "—" if w.alpha is None else f"{w.alpha:.2f}", "expected": f"{expected:.2f}"},
                   tuple(evidence))


def speedups_by_gamma(marginal: Sequence[float], c: float) -> list[float]:
    """Expected speedup at γ = 0 … len(marginal): τ(γ) = 1 + Σ_{j<γ} p_j (drafts cut at γ keep their
    first γ positions) through the one formula, `speedup_of_tau`."""
    out, tau = [1.0], 1.0
    for gamma, p in enumerate(marginal, start=1):
        tau += p
        out.append(speedup_of_tau(tau, gamma, c))
    return out


def which_gamma(obs: Observation, c: float, c_measured: bool) -> DoctorFinding | None:
    """The per-position curve and the γ it recommends (None without per-position series)."""
    w = obs.totals
    if w is None or not w.per_position or w.drafts <= 0:
        return None
    marginal = [n / w.drafts for n in w.per_position]
    speeds = speedups_by_gamma(marginal, c)
    best = best_of(speeds)
    now, _ = gamma_of(obs)
    now = min(now or len(marginal), len(marginal))
    series = _metric(obs, "spec_decode_num_accepted_tokens_per_pos_total")
    evidence = [Evidence(f"position_{k}", p, told("marginal", series=series)) for k, p in enumerate(marginal)]
    evidence += [Evidence(f"speedup_at_gamma_{g}", s, told("theory")) for g, s in enumerate(speeds) if g]
    evidence.append(Evidence("c", c, told("implied" if c_measured else "assumed")))
    if w.drafts < FEW_DRAFTS:
        level, reason = LOW, "few_drafts"
    else:
        level, reason = (HIGH, "c_measured") if c_measured else (MEDIUM, "c_assumed")
    fields: dict[str, object] = {"best": best, "best_speedup": f"{speeds[best]:.2f}", "now": now,
                                 "now_speedup": f"{speeds[now]:.2f}", "c": f"{c:.2f}"}
    if best == 0:
        return DoctorFinding("gamma_none", WARN, level, reason, fields, tuple(evidence))
    if best != now and speeds[best] > speeds[now] * (1 + BETTER):
        return DoctorFinding("gamma_change", WARN, level, reason, fields, tuple(evidence),
                       flag(SET_GAMMA, obs.engine, best))
    return DoctorFinding("gamma_keep", OK, level, reason, fields, tuple(evidence))


def numbers(obs: Observation) -> DoctorFinding:
    """Each engine's "acceptance" side by side: specview's α and the dashboards' rate."""
    w = obs.totals
    assert w is not None
    evidence = _rates(obs)
    made = finished_tokens(obs)
    share = w.accepted / made if made else None
    evidence.append(Evidence("draft_share", share, told("draft_share", tokens=obs.tokens_source
                                                          or told("generated_tokens"))))
    for name, value in sorted((obs.last.gauges if obs.last else {}).items()):
        evidence.append(Evidence(name, value, told("gauge")))
    alpha, rate = w.alpha, w.draft_yield
    fields: dict[str, object] = {"alpha": "—" if alpha is None else f"{alpha:.3f}",
                                 "rate": "—" if rate is None else f"{rate:.3f}",
                                 "tau": f"{w.mean_accepted_length or 1.0:.2f}",
                                 "cadence": Phrase(f"doctor.cadence.{obs.engine}")}
    differ = alpha is not None and rate is not None and alpha > 0 and (alpha - rate) / alpha > DIFFER
    return DoctorFinding("numbers_differ" if differ else "numbers", WARN if differ else OK, HIGH, "definitions",
                   fields, tuple(evidence))


def checks(obs: Observation) -> list[DoctorFinding]:
    """What was set aside, what stopped answering, and probes that failed: one finding each."""
    found = [props_large(line) if line.key == "doctor.set_aside_text.props_large"
             else DoctorFinding("set_aside", PROBLEM, HIGH, "checks_failed", {"what": line}) for line in obs.set_aside]
    found += [DoctorFinding("stopped", WARN, HIGH, "source_stopped", {"what": line}) for line in obs.errors]
    failed = [p.error for p in obs.probes if p.error is not None]
    if failed:
        found.append(DoctorFinding("probe_failed", WARN, HIGH, "probe_errors",
                             {"n": len(failed), "of": len(obs.probes), "what": failed[0]}))
    return found
