"""One concept, one place: v(γ), marginal → conditional acceptance, recorded vs simulated, the
stringly-typed values made enums (their JSON words unchanged), and RunSpec's recorded fields."""

from __future__ import annotations

import json

import pytest

from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.remote.options import RemoteOptions
from specview.backends.replay import ReplayOptions
from specview.boundary.jsonio import dumps
from specview.features.learn.explain.roofline import measured_ratios, verify_cost_numbers
from specview.features.record.recorder import recording_header
from specview.features.sweep.model import GammaPoint, analyse_gamma
from specview.features.watch.model import Scrape, WatchModel
from specview.kernel.backend import BackendInfo, BackendKind, Exact, Origin
from specview.kernel.events import Basis, Calibration, Round, TokenEvent, TokenStatus
from specview.kernel.gauges import GAUGES, Reading
from specview.kernel.metrics import Metrics
from specview.kernel.overlay import overlay
from specview.kernel.runspec import HEADER, RunSpec
from specview.kernel.theory import conditional_from_marginal, survival, verify_ratio
from specview.tui.gauges import origin_text

COSTS = (0.010, 0.011, 0.013, 0.016, 0.021)  # a CPU's k-token forwards, k = 1 … 5
A, B = TokenStatus.ACCEPTED, TokenStatus.BONUS


def drafting_rounds(gamma: int, n: int) -> list[Round]:
    tokens = tuple(TokenEvent(i, "x", A if i < gamma else B, i) for i in range(gamma + 1))
    return [Round(i, gamma, tokens, 0.002, COSTS[gamma], 1.0 + 0.02 * i) for i in range(n)]


def overlay_ratio(gamma: int) -> float | None:
    m = Metrics()
    m.add(Calibration(Basis.MEASURED, COSTS[0], COSTS))
    for rnd in drafting_rounds(gamma, 10):
        m.add(rnd)
    return overlay(m.snapshot()).verify_ratio


def sweep_ratio(gamma: int) -> float | None:
    plain = GammaPoint(0, 100, 100, 40.0, 1.0, None, mean_verify_s=COSTS[0])
    run = GammaPoint(gamma, 100, 40, 60.0, 2.5, 0.8, (0.8,) * gamma, 0.1, COSTS[gamma], float(gamma), 80, 100, gamma)
    return next(r.verify_ratio for r in analyse_gamma([plain, run]).rows if r.point.gamma == gamma)


@pytest.mark.parametrize("gamma", [1, 2, 3, 4])
def test_every_view_of_v_gamma_gives_the_same_number(gamma: int) -> None:
    """The side panel (overlay), the calibration, Learn 2 (roofline) and the γ sweep agree."""
    expected = COSTS[gamma] / COSTS[0]
    assert verify_ratio(COSTS, gamma) == pytest.approx(expected)
    assert Calibration(Basis.MEASURED, COSTS[0], COSTS).verify_ratio(gamma) == pytest.approx(expected)
    assert overlay_ratio(gamma) == pytest.approx(expected)
    assert measured_ratios(COSTS)[gamma] == pytest.approx(expected)
    learn = verify_cost_numbers(measured_seconds=COSTS, run=(0.8, gamma, 0.1))
    assert learn["run"]["verify_ratio"] == pytest.approx(expected)
    assert sweep_ratio(gamma) == pytest.approx(expected)


def test_v_is_unknown_past_what_was_timed_in_every_view() -> None:
    assert verify_ratio(COSTS, len(COSTS)) is None
    assert Calibration(Basis.MEASURED, COSTS[0], COSTS).verify_ratio(len(COSTS)) is None
    assert verify_ratio({0: COSTS[0]}, 3) is None  # a sweep that did not time γ 3
    with pytest.raises(ValueError):
        measured_ratios([0.0, 0.01])


def test_watch_and_theory_turn_marginal_counts_into_the_same_conditionals() -> None:
    drafts, counts = 200, (150, 90, 45)
    model = WatchModel()
    model.feed(Scrape(0.0, 0, 0, 0, (0, 0, 0)))
    sample = model.feed(Scrape(1.0, drafts, 600, sum(counts), counts))
    assert sample is not None
    from_probabilities = conditional_from_marginal([c / drafts for c in counts])
    assert sample.per_position_acceptance == pytest.approx(tuple(from_probabilities))
    assert survival([a for a in from_probabilities if a is not None]) == pytest.approx([c / drafts for c in counts])


def info(kind: str, virtual_clock: bool) -> BackendInfo:
    return BackendInfo(kind, "x", 3, 1.0, virtual_clock=virtual_clock, exact={Exact.TOKENS_PER_SECOND: True})


@pytest.mark.parametrize(("kind", "virtual", "origin"), [
    (BackendKind.SIM, True, Origin.SIMULATED), (BackendKind.REPLAY, True, Origin.RECORDED),
    (BackendKind.LLAMA, False, Origin.MEASURED), (BackendKind.REMOTE, False, Origin.MEASURED),
])
def test_recorded_or_simulated_is_decided_once(kind: str, virtual: bool, origin: Origin) -> None:
    """The gauge's tag and the summary's origin column both follow BackendInfo.origin."""
    run = info(kind, virtual)
    assert run.origin is origin
    tps = next(spec for spec in GAUGES if spec.key == "tokens_per_second")
    assert tps.tag_id(run) == {Origin.SIMULATED: "tag.simulated", Origin.RECORDED: "tag.recorded",
                               Origin.MEASURED: "tag.exact"}[origin]
    words = origin_text(Reading.of(Metrics().snapshot(), run), "en").split(" · ")
    assert words[0] == {Origin.SIMULATED: "simulated", Origin.RECORDED: "recorded", Origin.MEASURED: "measured"}[origin]


def test_the_enums_write_the_words_recordings_always_held() -> None:
    cal = Calibration(Basis.MEASURED, 0.01, (0.01, 0.02))
    assert dumps(cal.to_dict()) == ('{"basis": "measured", "plain_s": 0.01, "verify_costs_s": [0.01, 0.02], '
                                    '"context": null}')
    assert Calibration.from_dict(json.loads(dumps(cal.to_dict()))) == cal
    assert Calibration("assumed", 0.01).basis is Basis.ASSUMED  # given as its word, kept as the member
    exact = {Exact.TOKENS_PER_SECOND: True, "basis": Basis.PLAIN_ROUNDS}
    assert dumps(exact) == '{"tokens_per_second": true, "basis": "plain-rounds"}'
    assert info(BackendKind.SIM, True).run_label == "sim:x γ3 T1"
    assert RunSpec(options=RemoteOptions(url="http://127.0.0.1:1/v1")).kind == "openai"
    with pytest.raises(ValueError):
        Calibration(Basis.PLAIN_ROUNDS, 0.01)  # the run's own plain rounds are never a calibration


def test_the_header_records_runspec_fields_then_its_backends_in_the_order_they_are_declared() -> None:
    common = ["preset", "gamma", "temperature", "seed", "lang", "speed", "max_rounds", "max_tokens", "plain",
              "api_key_env", "tree"]
    local = RunSpec(preset="glm-5.2-mtp", prompt="hello", lang="zh", api_key_env="MY_KEY",
                    options=LlamaRunOptions(target="t.gguf", draft="ngram", threads=2))
    header = recording_header(info(BackendKind.SIM, True), local)
    assert list(header["settings"]) == [*common, "demo", "adaptive", "gpu_layers", "threads", "chat_template",
                                        "repack"]
    assert header["models"] == {"model": None, "draft": None, "target": "t.gguf", "draft_source": "ngram"}
    assert header["prompt"] == "hello" and header["settings"]["threads"] == 2
    remote = RunSpec(prompt="hello", options=RemoteOptions(url="http://u:pw@127.0.0.1:1/v1?k=v"))
    header = recording_header(info(BackendKind.REMOTE, True), remote)
    assert list(header["settings"]) == [*common, "url", "server", "raw"]
    assert header["settings"]["url"] == "http://127.0.0.1:1/v1" and header["models"] == {"model": None, "draft": None}
    recorded = RunSpec(lang="zh", options=ReplayOptions(recording="r.jsonl")).header_fields()
    assert recorded["settings"]["lang"] == "zh" and recorded["settings"]["replay"] == "r.jsonl"
    assert "api_key" not in recorded["settings"]  # the key's value is never a recorded field


def test_a_field_declared_recorded_reaches_the_header() -> None:
    """What the header writes comes from RunSpec's declarations and its options record's, not a second list."""
    from dataclasses import fields

    places = {f.name: f.metadata[HEADER] for record in (RunSpec, LlamaRunOptions) for f in fields(record)
              if HEADER in f.metadata}
    recorded = RunSpec(max_tokens=9, options=LlamaRunOptions(threads=7, draft="d.gguf")).header_fields()
    for name, place in places.items():
        section, _, key = place.rpartition(".")
        assert key in (recorded[section] if section else recorded), name
    assert recorded["settings"]["threads"] == 7 and recorded["models"]["draft_source"] == "d.gguf"
