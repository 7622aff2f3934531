"""An instance's reading from Prometheus (the watch's PrometheusFleet) as doctor's Observation, and
what the rules conclude from it: a down instance concludes nothing, zero drafts in all Prometheus
holds is "off" of medium confidence (a loaded drafter that never drafts looks the same), the
method is "cannot tell", and counts that broke an invariant are set aside."""

from __future__ import annotations

from specview.features.doctor.finding import HIGH, MEDIUM, WARN
from specview.features.doctor.rules import diagnose
from specview.features.doctor.through_prometheus import VIA, of_reading
from specview.features.watch.model import Scrape, WatchModel, WatchSample
from specview.features.watch.model.fleet import InstanceReading, State
from specview.texts.catalog import Phrase


def sample(t: float, drafts: int, drafted: int, accepted: int, positions: tuple[int, ...],
           tokens: int) -> WatchSample:
    """A window folded by the watch's model, as the Prometheus source folds it."""
    model = WatchModel(history=1)
    model.feed(Scrape(t - 5, drafts=0, draft_tokens=0, accepted=0, per_position=(0,) * len(positions), tokens=0))
    folded = model.feed(Scrape(t, drafts=drafts, draft_tokens=drafted, accepted=accepted, per_position=positions,
                               tokens=tokens))
    assert folded is not None
    return folded


def up(now: WatchSample | None, history: tuple[WatchSample, ...] = ()) -> InstanceReading:
    return InstanceReading("a:9100", State.UP, engine="llama-server", gamma=3, sample=now, history=history,
                           labels=(("instance", "a:9100"), ("job", "llama")))


def test_a_down_instance_concludes_nothing_but_why() -> None:
    obs = of_reading(InstanceReading("a:1", State.DOWN, engine="llama-server",
                                     error=Phrase("watcherr.prometheus.gone")), 10.0)
    (found,) = diagnose(obs)
    assert obs.via == VIA and found.id == "stopped" and "a:1" in found.said("en")


def test_drafts_in_the_window_are_on_with_the_method_unread() -> None:
    obs = of_reading(up(sample(100, 10, 30, 20, (9, 7, 4), 40), (sample(90, 2, 6, 3, (2, 1, 0), 8),)), 5.0)
    assert obs.window_s == 5 and obs.samples == 2
    found = {f.id: f for f in diagnose(obs)}
    on = found["on"]
    evidence = {e.name: e for e in on.evidence}
    assert on.confidence == HIGH and "cannot tell" in on.said("en") and "无法判断" in on.said("zh")
    assert evidence["method"].value is None and "Prometheus" in str(evidence["method"].source)
    assert evidence["drafted_in_window"].value == 30 and evidence["drafted_total"].value == 36
    assert evidence["tokens_in_window"].value == 40 and evidence["gamma"].value == 3


def test_zero_drafts_in_all_prometheus_holds_is_off_of_medium_confidence() -> None:
    obs = of_reading(up(sample(100, 0, 0, 0, (), 40), (sample(90, 0, 0, 0, (), 8),)), 5.0)
    off = {f.id: f for f in diagnose(obs)}["off"]
    assert (off.severity, off.confidence, off.reason) == (WARN, MEDIUM, "zero_drafts_prometheus")
    assert off.flag is not None and "--spec-type" in off.flag


def test_counts_that_broke_an_invariant_are_set_aside() -> None:
    obs = of_reading(up(sample(100, 10, 20, 30, (20, 10), 40)), 5.0)  # accepted > drafted
    found = diagnose(obs)
    aside = [f.said("en") for f in found if f.id == "set_aside"]
    assert aside and len(aside) == len(set(aside)) and "accepted ≤ drafted" in aside[0]  # one line per rule
    assert not {f.id for f in found} & {"pays_unknown", "gamma_keep", "gamma_change", "numbers", "numbers_differ"}
