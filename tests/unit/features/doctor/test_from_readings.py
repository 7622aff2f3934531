"""Doctor's Observation from a watch's readings (from_readings.py): the watch's WatchModel or one
fleet row, through the same rules as the command; nothing is asked of any server."""

from __future__ import annotations

from specview.features.doctor.finding import PROBLEM
from specview.features.doctor.from_readings import from_row, from_watch
from specview.features.doctor.rules import diagnose, finished_tokens
from specview.features.doctor.screen import MARKS, finding_blocks
from specview.features.watch.model import Scrape, WatchModel, WatchSample
from specview.features.watch.model.invariants import Violation
from tests.support.fleet_snapshots import row, window


def model_of(*scrapes: Scrape) -> WatchModel:
    model = WatchModel()
    for s in scrapes:
        model.feed(s)
    return model


def test_the_watch_model_keeps_its_first_and_latest_scrape() -> None:
    a, b = Scrape(0.0, 10, 30, 20, tokens=100), Scrape(1.0, 20, 60, 40, tokens=160)
    model = model_of(a, b)
    assert model.first is a and model.last is b


def test_a_watch_becomes_doctors_window_since_watching_began() -> None:
    model = model_of(Scrape(0.0, 10, 30, 20, tokens=100), Scrape(1.0, 20, 60, 40, tokens=160),
                     Scrape(3.0, 40, 120, 80, tokens=300))
    obs = from_watch("http://u:secret@h:1", "llama-server", "ngram-simple", 3, True, model, 2)
    assert "secret" not in obs.url
    assert obs.window_s == 3.0 and obs.samples == 2 and obs.prefix == "llamacpp"
    assert obs.totals is not None and (obs.totals.drafts, obs.totals.accepted) == (30, 60)
    assert finished_tokens(obs) == 200
    ids = [f.id for f in diagnose(obs)]
    assert ids[0] == "on" and "pays_unknown" in ids and ids[-2].startswith("numbers") and ids[-1] == "context_unknown"


def test_after_a_restart_the_first_scrape_is_no_base_for_the_counters() -> None:
    model = model_of(Scrape(0.0, 10, 30, 20, tokens=500), Scrape(1.0, 2, 6, 4, tokens=50))
    obs = from_watch("http://h:1", "llama-server", None, None, True, model, 1)
    assert model.resets == 1 and finished_tokens(obs) is None  # not 50 − 500, nor 50 counted from the old base


def test_a_lying_watch_sets_its_counters_aside_and_builds_nothing_on_them() -> None:
    model = model_of(Scrape(0.0, 10, 30, 20), Scrape(1.0, 20, 40, 90))  # 70 accepted of 10 drafted
    found = diagnose(from_watch("http://h:1", "vllm", "ngram", 3, True, model, 1))
    assert found[0].id == "set_aside" and found[0].severity == PROBLEM
    assert not [f for f in found if f.id.startswith(("pays", "gamma", "numbers"))]
    severity, said, _detail = finding_blocks(found, "en")[0]
    assert severity == PROBLEM and said.startswith(f"{MARKS[PROBLEM]} [problem]")


def test_a_fleet_row_becomes_doctors_window_of_its_last_readings() -> None:
    obs = from_row(row("http://h:8003", engine="vllm", method="eagle3", gamma=5, sample=window(30, 0, 300),
                       history=(0.0, None, 0.1)), 2.0)
    assert (obs.engine, obs.method, obs.gamma, obs.prefix, obs.samples) == ("vllm", "eagle3", 5, "vllm", 2)
    assert obs.first is None and obs.last is None  # no cumulative scrapes: nothing said of them
    ids = [f.id for f in diagnose(obs)]
    assert ids[:2] == ["on", "pays_unknown"] and "gamma_none" in ids


def test_a_fleet_row_without_a_window_is_only_what_the_source_said() -> None:
    found = diagnose(from_row(row("http://h:1", engine="prometheus-only", method=None, gamma=None), 2.0))
    assert [f.id for f in found] == ["unknown"]


def test_a_fleet_row_whose_window_broke_a_rule_is_set_aside() -> None:
    lying = WatchSample(0.0, 2.0, 10, 10, 30, (), None, None,
                        violations=(Violation("delta", "accepted_le_drafted", {"accepted": 30, "drafted": 10}),))
    found = diagnose(from_row(row("http://h:1", engine="vllm", sample=lying), 2.0))
    assert found[0].id == "set_aside"
