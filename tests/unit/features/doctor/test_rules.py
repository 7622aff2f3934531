"""Each rule of `specview doctor` on a window built from scrapes (the watch's own model folds them)."""

from __future__ import annotations

import pytest

from specview.features.doctor.finding import HIGH, LOW, MEDIUM, OK, PROBLEM, WARN, DoctorFinding
from specview.features.doctor.observe import Observation
from specview.features.doctor.probe import ProbeResult
from specview.features.doctor.rules import (
    ASSUMED_C_MODEL,
    diagnose,
    pays,
    speculation,
    speedups_by_gamma,
    which_gamma,
)
from specview.features.watch.model import Scrape, WatchModel
from specview.kernel.theory import alpha_for_tau, implied_c, speedup_of_tau
from specview.texts.catalog import Phrase


def window(first: Scrape, last: Scrape, *, engine: str = "llama-server", method: str | None = None,
           gamma: int | None = None, speculating: bool = False, probes: list[ProbeResult] | None = None) -> Observation:
    """An Observation of two scrapes, folded and checked as `observe` does."""
    model = WatchModel()
    model.feed(first)
    model.feed(last)
    obs = Observation("http://h:1", engine, method, gamma, speculating, 10.0, first=first, last=last,
                      totals=model.totals(), samples=1, probes=probes or [],
                      prefix="llamacpp" if engine == "llama-server" else engine, tokens_source="tokens")
    for v in model.violations:
        obs.set_aside.append(Phrase("doctor.set_aside_text.counters", url=obs.url,
                                    rule=Phrase(f"watch.rule.{v.rule}"), values=str(v.values)))
    return obs


def by_id(found: list[DoctorFinding], prefix: str) -> DoctorFinding:
    (hit,) = [f for f in found if f.id.startswith(prefix)]
    return hit


def test_off_without_counters_gives_the_flag_to_turn_it_on() -> None:
    obs = window(Scrape(0.0, tokens=0), Scrape(10.0, tokens=50))
    found = speculation(obs)
    assert (found.id, found.severity, found.confidence, found.reason) == ("off", WARN, HIGH, "no_counters")
    assert found.flag is not None and "--spec-type" in found.flag and "--spec-draft-n-max" in found.flag


def test_off_for_vllm_names_its_speculative_config() -> None:
    obs = window(Scrape(0.0, tokens=0), Scrape(10.0, tokens=50), engine="vllm")
    found = speculation(obs)
    assert found.id == "off" and found.flag is not None and "--speculative-config" in found.flag
    assert "num_speculative_tokens" in found.flag


def test_a_drafter_that_never_drafts_while_tokens_are_made_is_a_problem() -> None:
    obs = window(Scrape(0.0, 0, 0, 0, tokens=0), Scrape(10.0, 0, 0, 0, tokens=80), method="draft model (draft-simple)",
                 speculating=True)
    found = speculation(obs)
    assert (found.id, found.severity, found.confidence) == ("idle", PROBLEM, HIGH)
    assert found.fields["tokens"] == 80


def test_an_ngram_drafter_idle_in_the_window_is_only_a_warning() -> None:
    obs = window(Scrape(0.0, 0, 0, 0, tokens=0), Scrape(10.0, 0, 0, 0, tokens=80), method="n-gram (ngram-simple)",
                 speculating=True)
    found = speculation(obs)
    assert (found.id, found.severity, found.confidence) == ("idle", WARN, MEDIUM)


def test_tokens_of_requests_still_running_do_not_make_a_drafter_look_idle() -> None:
    # llama-server: the draft counters move when a request ends; /slots shows 80 tokens in flight
    obs = window(Scrape(0.0, 0, 0, 0, tokens=0), Scrape(10.0, 0, 0, 0, tokens=0, in_flight=80),
                 method="draft model (draft-simple)", speculating=True)
    assert obs.totals is not None and obs.totals.tokens == 80  # the watch counts them as they go
    found = speculation(obs)
    assert (found.id, found.confidence, found.reason) == ("on", LOW, "no_traffic")


def test_on_with_method_and_gamma_from_the_position_series() -> None:
    obs = window(Scrape(0.0, 0, 0, 0, (0, 0, 0), tokens=0),
                 Scrape(10.0, 10, 30, 15, (8, 5, 2), tokens=40), method="n-gram (ngram-simple)", speculating=True)
    found = speculation(obs)
    assert (found.id, found.severity, found.confidence) == ("on", OK, HIGH)
    assert found.fields == {"method": "n-gram (ngram-simple)", "gamma": 3}


def test_no_traffic_is_on_with_low_confidence() -> None:
    obs = window(Scrape(0.0, 5, 15, 7, tokens=30), Scrape(10.0, 5, 15, 7, tokens=30), method="MTP", gamma=3,
                 speculating=True)
    found = speculation(obs)
    assert (found.id, found.confidence, found.reason) == ("on", LOW, "no_traffic")


def test_pays_without_a_baseline_says_the_alpha_needed_at_an_assumed_c() -> None:
    obs = window(Scrape(0.0, 0, 0, 0, (0, 0, 0), tokens=0),
                 Scrape(10.0, 100, 300, 120, (60, 40, 20), tokens=220), method="draft model", gamma=3,
                 speculating=True)
    found = pays(obs, None)
    assert (found.id, found.confidence, found.reason) == ("pays_unknown", LOW, "no_baseline")
    evidence = {e.name: e.value for e in found.evidence}
    assert evidence["c_assumed"] == ASSUMED_C_MODEL
    assert evidence["alpha_needed"] == pytest.approx(alpha_for_tau(1 + 3 * ASSUMED_C_MODEL, 3))
    assert evidence["tau"] == pytest.approx(2.2)  # 1 + 120 ÷ 100
    assert evidence["expected_speedup"] == pytest.approx(speedup_of_tau(2.2, 3, ASSUMED_C_MODEL))


def test_pays_with_a_baseline_gives_the_implied_c_and_a_slowdown_is_a_problem() -> None:
    probe = ProbeResult(tokens=40, decode_ms=4000.0)  # 10 tok/s
    obs = window(Scrape(0.0, 0, 0, 0, tokens=0), Scrape(10.0, 100, 300, 120, tokens=220), method="MTP", gamma=3,
                 speculating=True, probes=[probe])
    found = pays(obs, baseline_tps=20.0)
    assert (found.id, found.severity) == ("pays_measured", PROBLEM)
    evidence = {e.name: e.value for e in found.evidence}
    assert evidence["speedup"] == pytest.approx(0.5)
    assert evidence["c_implied"] == pytest.approx(implied_c(2.2, 3.0, 0.5))  # (2.2 ÷ 0.5 − 1) ÷ 3
    assert evidence["c_implied"] == pytest.approx((2.2 / 0.5 - 1) / 3)


def test_which_gamma_recommends_a_shorter_draft_when_late_positions_are_rarely_accepted() -> None:
    # vLLM's 0.84/0.60/0.39/0.27 shape (research §4.2), and a costly drafter
    obs = window(Scrape(0.0, 0, 0, 0, (0, 0, 0, 0), tokens=0),
                 Scrape(10.0, 1000, 4000, 2100, (840, 600, 390, 270), tokens=3100), engine="vllm",
                 method="EAGLE", gamma=4, speculating=True)
    found = which_gamma(obs, 0.3, False)
    assert found is not None
    speeds = speedups_by_gamma([0.84, 0.60, 0.39, 0.27], 0.3)
    assert found.fields["best"] == max(range(5), key=lambda g: speeds[g]) == 2
    assert found.id == "gamma_change" and found.severity == WARN
    assert found.flag is not None and '"num_speculative_tokens":2' in found.flag
    assert speeds[2] == pytest.approx(speedup_of_tau(1 + 0.84 + 0.60, 2, 0.3))


def test_which_gamma_keeps_gamma_when_it_is_best() -> None:
    obs = window(Scrape(0.0, 0, 0, 0, (0, 0, 0), tokens=0),
                 Scrape(10.0, 100, 300, 270, (95, 90, 85), tokens=370), method="MTP", gamma=3, speculating=True)
    found = which_gamma(obs, 0.02, False)
    assert found is not None and found.id == "gamma_keep" and found.flag is None


def test_the_numbers_side_by_side_warn_when_alpha_and_the_dashboards_rate_differ() -> None:
    # n-gram: 10 drafts of 40 tokens, 12 accepted; most drafts rejected at their first token
    obs = window(Scrape(0.0, 0, 0, 0, tokens=0), Scrape(10.0, 10, 40, 12, tokens=60), method="n-gram",
                 speculating=True)
    found = by_id(diagnose(obs), "numbers")
    assert found.id == "numbers_differ" and found.severity == WARN
    evidence = {e.name: e.value for e in found.evidence}
    assert evidence["yield"] == pytest.approx(12 / 40)
    alpha, rate = evidence["alpha"], evidence["yield"]
    assert isinstance(alpha, float) and isinstance(rate, float) and alpha > rate
    assert evidence["draft_share"] == pytest.approx(12 / 60)
    assert "request ends" in found.said("en")


@pytest.mark.parametrize(("last", "rule"), [
    (Scrape(10.0, 10, 20, 30, tokens=60), "accepted_le_drafted"),  # accepted > drafted
    (Scrape(10.0, 10, 40, 12, (5, 3), tokens=60), "positions_sum"),  # 5 + 3 ≠ 12
])
def test_a_lying_server_sets_its_counters_aside_and_nothing_is_built_on_them(last: Scrape, rule: str) -> None:
    obs = window(Scrape(0.0, 0, 0, 0, tokens=0), last, method="MTP", gamma=3, speculating=True)
    found = diagnose(obs)
    aside = [f for f in found if f.id == "set_aside"]
    assert aside and all(f.severity == PROBLEM for f in aside)
    what = aside[0].fields["what"]
    assert isinstance(what, Phrase) and Phrase(f"watch.rule.{rule}").render("en") in what.render("en")
    ids = {f.id for f in found}
    assert not ids & {"pays_unknown", "pays_measured", "gamma_change", "gamma_keep", "numbers", "numbers_differ"}
    spec = by_id(found, "on")
    assert spec.confidence == LOW and spec.reason == "counters_set_aside"


def test_every_finding_says_itself_in_both_languages() -> None:
    obs = window(Scrape(0.0, 0, 0, 0, (0, 0, 0), tokens=0),
                 Scrape(10.0, 100, 300, 120, (60, 40, 20), tokens=220), method="MTP", gamma=3, speculating=True)
    for f in diagnose(obs):
        en, zh = f.said("en"), f.said("zh")
        assert en and zh and en != zh and "{" not in en + zh
        assert f.why("en") != f.why("zh")


def test_with_a_baseline_the_gamma_advice_uses_the_implied_c_and_is_sure_of_it() -> None:
    probe = ProbeResult(tokens=40, decode_ms=2000.0)  # 20 tok/s against a plain 16: 1.25×
    obs = window(Scrape(0.0, 0, 0, 0, (0, 0, 0), tokens=0),
                 Scrape(10.0, 100, 300, 150, (80, 50, 20), tokens=250), method="MTP", gamma=3, speculating=True,
                 probes=[probe])
    found = diagnose(obs, baseline_tps=16.0)
    gamma = by_id(found, "gamma_")
    c = implied_c(2.5, 3.0, 1.25)  # τ 1 + 150 ÷ 100, mean draft 3
    assert c is not None and c == pytest.approx((2.5 / 1.25 - 1) / 3)
    assert {e.name: e.value for e in gamma.evidence}["c"] == pytest.approx(c)
    assert (gamma.confidence, gamma.reason) == (HIGH, "c_measured")
    assert by_id(found, "pays_").id == "pays_measured" and by_id(found, "pays_").severity == OK
