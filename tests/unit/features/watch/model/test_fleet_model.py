"""The fleet model: states (up, down, stalled), totals as a sum, retention, outliers and alerts."""

from __future__ import annotations

import pytest

from specview.features.watch.model import WatchSample
from specview.features.watch.model.alert_rules import AlertRules
from specview.features.watch.model.crossover import given_baseline
from specview.features.watch.model.fleet import AlertKind, InstanceReading, State
from specview.features.watch.model.fleet_model import FleetModel

DT = 2.0


def sample(drafts: int, per_position: tuple[int, ...], *, gamma: int = 3, tokens: int | None = None,
           active: float | None = 1.0, dt: float = DT, t: float = 0.0, reset: bool = False) -> WatchSample:
    """A window of `drafts` drafts of γ tokens, accepting `per_position[k]` at position k."""
    accepted = sum(per_position)
    return WatchSample(t, dt, drafts, drafts * gamma, accepted, per_position,
                       tokens if tokens is not None else drafts + accepted, active, reset)


def up(name: str, s: WatchSample | None) -> InstanceReading:
    return InstanceReading(name, State.UP, engine="llama-server", method="draft-mtp", sample=s)


def down(name: str, error: str = "connection refused") -> InstanceReading:
    return InstanceReading(name, State.DOWN, error=error)


def fold(model: FleetModel, *readings: InstanceReading, now: float) -> dict[str, object]:
    snap = model.fold(tuple(readings), now=now)
    return {row.instance: row for row in snap.rows} | {"_snap": snap}


def test_totals_are_the_sum_of_the_instances_that_answered() -> None:
    model = FleetModel(DT)
    a, b = sample(100, (80, 60, 40)), sample(50, (20, 5, 1), gamma=3)
    snap = model.fold((up("a", a), up("b", b), down("c")), now=1000.0)
    totals = snap.totals
    assert totals is not None
    assert (totals.drafts, totals.draft_tokens, totals.accepted) == (150, 450, 206)
    assert totals.tokens == (a.tokens or 0) + (b.tokens or 0) and totals.active == 2.0
    assert totals.tokens_per_s == pytest.approx(((a.tokens or 0) + (b.tokens or 0)) / DT)
    # α pooled: accepted over every instance's own verified positions
    assert totals.alpha == pytest.approx(206 / ((100 + 80 + 60) + (50 + 20 + 5)))
    assert [r.state for r in snap.rows] == [State.UP, State.UP, State.DOWN]


def test_totals_add_servers_of_different_gamma_by_their_own_verified_positions() -> None:
    model = FleetModel(DT)
    g3 = sample(100, (80, 60, 40))  # verified 100 + 80 + 60 = 240
    g1 = sample(100, (50,), gamma=1)  # verified 100
    totals = model.fold((up("a", g3), up("b", g1)), now=1.0).totals
    assert totals is not None and totals.alpha == pytest.approx((180 + 50) / (240 + 100))
    assert totals.alpha_basis == "positions"  # each instance's series describe its every draft


def test_down_is_immediate_and_raises_the_alert_and_coming_back_clears_it() -> None:
    model = FleetModel(DT)
    fold(model, up("a", sample(30, (20, 10, 5))), now=0.0)
    rows = fold(model, down("a", "no answer within 2 s"), now=2.0)
    row = rows["a"]
    assert row.state is State.DOWN and row.since == 2.0 and row.window is None  # type: ignore[attr-defined]
    snap = rows["_snap"]
    assert [a.kind for a in snap.alerts] == [AlertKind.DOWN]  # type: ignore[attr-defined]
    assert snap.alerts[0].values["error"] == "no answer within 2 s"  # type: ignore[attr-defined]
    assert [a.kind for a in snap.began] == [AlertKind.DOWN]  # type: ignore[attr-defined]
    again = fold(model, up("a", sample(30, (20, 10, 5))), now=4.0)["_snap"]
    assert again.alerts == () and [a.kind for a in again.ended] == [AlertKind.DOWN]  # type: ignore[attr-defined]
    assert again.rows[0].state is State.UP and again.rows[0].since == 4.0  # type: ignore[attr-defined]


def test_stalled_after_two_polls_with_requests_running_and_no_counter_moving() -> None:
    model = FleetModel(DT)
    fold(model, up("a", sample(30, (20, 10, 5))), now=0.0)
    still = sample(0, (0, 0, 0), tokens=0, active=3.0)
    assert fold(model, up("a", still), now=2.0)["a"].state is State.UP  # type: ignore[attr-defined]
    rows = fold(model, up("a", still), now=4.0)
    assert rows["a"].state is State.STALLED  # type: ignore[attr-defined]
    (alert,) = [a for a in rows["_snap"].alerts if a.kind is AlertKind.STALLED]  # type: ignore[attr-defined]
    assert alert.values["seconds"] == 4.0 and alert.values["running"] == 3.0  # still since 0 + 2 − 2
    # an idle server (nothing running) is not stalled, however long
    idle = FleetModel(DT)
    for k in range(5):
        rows = fold(idle, up("a", sample(0, (0, 0, 0), tokens=0, active=0.0)), now=2.0 * k)
    assert rows["a"].state is State.UP  # type: ignore[attr-defined]
    # moving again ends the stall
    assert fold(model, up("a", sample(30, (20, 10, 5))), now=6.0)["a"].state is State.UP  # type: ignore[attr-defined]


def test_retention_keeps_the_newest_windows_and_the_alpha_history_follows() -> None:
    model = FleetModel(DT, retention_s=10.0)
    for k in range(20):
        rows = fold(model, up("a", sample(10, (k % 10, 0, 0))), now=2.0 * k)
    history = rows["a"].alpha_history  # type: ignore[attr-defined]
    assert len(history) == 5  # 10 s of 2 s windows
    assert history[-1] == pytest.approx(9 / 19)


def test_an_instance_gone_from_the_readings_is_down_then_forgotten_after_the_retention() -> None:
    model = FleetModel(DT, retention_s=10.0)
    fold(model, up("a", sample(1, (1, 0, 0))), up("b", sample(1, (1, 0, 0))), now=0.0)
    rows = fold(model, up("a", sample(1, (1, 0, 0))), now=2.0)
    assert rows["b"].state is State.DOWN  # type: ignore[attr-defined]
    rows = fold(model, up("a", sample(1, (1, 0, 0))), now=20.0)
    assert "b" not in rows


def test_not_working_when_drafting_and_nothing_is_accepted_or_the_length_is_below_threshold() -> None:
    rules = AlertRules(window_s=4.0, min_drafts=20)
    model = FleetModel(DT, rules=rules)
    snap = fold(model, up("zero", sample(40, (0, 0, 0))), up("short", sample(100, (4, 0, 0))),
                up("fine", sample(100, (70, 40, 20))), up("quiet", sample(5, (0, 0, 0))), now=0.0)["_snap"]
    firing = {(a.instance, a.kind) for a in snap.alerts}  # type: ignore[attr-defined]
    assert firing == {("zero", AlertKind.NOT_WORKING), ("short", AlertKind.NOT_WORKING)}  # 1.04 < 1.05
    (short,) = [a for a in snap.alerts if a.instance == "short"]  # type: ignore[attr-defined]
    assert short.values["accept_length"] == pytest.approx(1.04) and short.values["threshold"] == 1.05


def test_alpha_drop_compares_the_last_window_with_the_one_before() -> None:
    rules = AlertRules(window_s=4.0, alpha_drop=0.2, min_drafts=20)
    model = FleetModel(DT, rules=rules)
    for k in range(2):  # window before: α = 90 / (100 + 60 + 30) ≈ 0.47 per sample
        snap = fold(model, up("a", sample(50, (30, 15, 0))), now=2.0 * k)["_snap"]
    assert snap.alerts == ()  # type: ignore[attr-defined]
    for k in range(2, 4):  # the last window: α = 10 / 55 ≈ 0.18
        snap = fold(model, up("a", sample(50, (5, 0, 0))), now=2.0 * k)["_snap"]
    (alert,) = snap.alerts  # type: ignore[attr-defined]
    assert alert.kind is AlertKind.ALPHA_DROP and alert.since == 6.0
    assert alert.values["before"] == pytest.approx(45 / 95, abs=1e-4)
    assert alert.values["after"] == pytest.approx(5 / 55, abs=1e-4)


def test_slower_than_the_baseline_per_running_request_only_where_a_baseline_is_given() -> None:
    slow = sample(20, (15, 10, 5), tokens=40, active=2.0)  # 20 tok/s, 10 per request
    assert fold(FleetModel(DT), up("a", slow), now=0.0)["_snap"].alerts == ()  # type: ignore[attr-defined]
    model = FleetModel(DT, rules=AlertRules(baseline_tokens_per_s=12.0))
    (alert,) = fold(model, up("a", slow), now=0.0)["_snap"].alerts  # type: ignore[attr-defined]
    assert alert.kind is AlertKind.SLOWER and alert.values["per_request"] == 10.0
    fast = FleetModel(DT, rules=AlertRules(baseline_tokens_per_s=8.0))
    assert fold(fast, up("a", slow), now=0.0)["_snap"].alerts == ()  # type: ignore[attr-defined]


def test_the_outlier_is_the_instance_its_own_sampling_noise_does_not_explain() -> None:
    model = FleetModel(DT, rules=AlertRules(min_drafts=20))
    typical = sample(200, (150, 100, 60))  # α = 310 / 450 ≈ 0.69
    near = sample(200, (145, 95, 55))  # ≈ 0.67: within noise
    odd = sample(200, (60, 20, 5))  # ≈ 0.30
    rows = fold(model, up("a", typical), up("b", near), up("c", typical), up("d", odd), now=0.0)
    assert [rows[n].outlier for n in "abcd"] == [False, False, False, True]  # type: ignore[attr-defined]
    # few drafts: the same α gap is noise
    few = FleetModel(DT, rules=AlertRules(min_drafts=2))
    rows = fold(few, up("a", sample(3, (2, 1, 1))), up("b", sample(3, (2, 1, 1))), up("d", sample(3, (1, 0, 0))),
                now=0.0)
    assert not rows["d"].outlier  # type: ignore[attr-defined]
    # two instances: neither is "the odd one out"
    pair = fold(FleetModel(DT), up("a", typical), up("d", odd), now=0.0)
    assert not pair["a"].outlier and not pair["d"].outlier  # type: ignore[attr-defined]


def test_an_alert_keeps_its_start_while_it_fires() -> None:
    model = FleetModel(DT)
    fold(model, down("a"), now=0.0)
    snap = fold(model, down("a"), now=2.0)["_snap"]
    assert snap.alerts[0].since == 0.0 and snap.began == ()  # type: ignore[attr-defined]


def test_the_instance_baseline_names_is_every_other_ones_measured_baseline() -> None:
    model = FleetModel(DT, baseline="http://plain:8080/")
    for k in range(3):
        rows = fold(model, up("http://spec:8080", sample(10, (8, 6, 4), tokens=60 + k)),
                    up("http://plain:8080", sample(0, (), tokens=40 + k)), now=float(k))
    spec, plain = rows["http://spec:8080"], rows["http://plain:8080"]
    assert plain.by_load.baseline is None  # type: ignore[union-attr]
    crossover = spec.by_load.crossover()  # type: ignore[union-attr]
    assert crossover.baseline is not None and crossover.baseline.source == "http://plain:8080"
    assert crossover.state == "not_reached" and crossover.paid_up_to == 1  # 30.5 against 20.5 tokens/s


def test_a_named_baseline_not_in_the_fleet_compares_with_nothing_and_a_fixed_one_with_every_level() -> None:
    rows = fold(FleetModel(DT, baseline="elsewhere:1"), up("a", sample(10, (8, 6, 4))), now=0.0)
    assert rows["a"].by_load.crossover().state == "no_common_level"  # type: ignore[union-attr]
    given = FleetModel(DT, baseline=given_baseline([(50.0, None)]))
    rows = fold(given, up("a", sample(10, (8, 6, 4))), now=0.0)
    baseline = rows["a"].by_load.baseline  # type: ignore[union-attr]
    assert baseline is not None and baseline.basis == "given" and baseline.every_level == 50.0
