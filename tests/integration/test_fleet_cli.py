"""`specview watch` over a fleet, headless, against real HTTP servers serving /metrics.

Small llama-server look-alikes (tests/support/exporter.py) whose counters a background thread
moves; the command runs as users run it, and its JSON, CSV, alerts and exit status are read.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from specview.cli import main
from specview.texts.catalog import fill, text
from tests.support.exporter import Exporter, exporters, nobody_url

ISSUE_FIELDS = {"instance", "engine", "method", "state", "alpha", "acceptance_rate", "draft_yield", "accept_length",
                "draft_share", "drafts_per_s", "draft_tokens_per_s", "tokens_per_s", "per_position_acceptance",
                "per_position_acceptance_basis", "per_position_marginal", "per_position_marginal_basis", "alerts"}


@pytest.fixture
def fleet() -> Iterator[list[Exporter]]:
    """Three exporters under load: a good one, another good one, one whose drafts are all refused."""
    stop = threading.Event()
    with exporters(3) as servers:
        def load() -> None:
            while not stop.wait(0.02):
                servers[0].advance(10, (8, 6, 4), running=2)
                servers[1].advance(10, (7, 5, 3), running=1)
                servers[2].advance(10, (0, 0, 0), tokens=10, running=1)

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        yield servers
        stop.set()
        thread.join()


def watch(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["watch", "-d", "0.3", "--min-drafts", "5", *args])
    out, err = capsys.readouterr()
    return code, out, err


def urls(servers: list[Exporter]) -> list[str]:
    return [arg for s in servers for arg in ("--url", s.root)]


def test_once_json_is_one_object_with_every_instance_and_the_totals_their_sum(
        fleet: list[Exporter], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = watch(capsys, *urls(fleet), "--once", "--json")
    assert code == 0, err
    (line,) = out.splitlines()
    record = json.loads(line)
    assert {"time", "unix_time", "window_s", "alert_window_s", "instances", "totals"} <= set(record)
    assert record["time"].endswith("Z") and record["window_s"] >= 0.3 - 0.01  # two scrapes an interval apart
    rows = record["instances"]
    assert [r["instance"] for r in rows] == [s.root for s in fleet]
    for row in rows:
        assert set(row) >= ISSUE_FIELDS and row["state"] == "up" and row["engine"] == "llama-server"
        assert row["window_s"] > 0 and row["drafts"] > 0
    good, other, refused = rows
    # α of the exporter's own counters: 18 accepted of 10 + 8 + 6 verified per step
    assert good["alpha"] == pytest.approx(18 / 24, abs=1e-3)
    # the engines' acceptance rate (vLLM's dashboard): accepted ÷ drafted, the yield
    assert good["acceptance_rate"] == good["draft_yield"] == pytest.approx(18 / 30, abs=1e-3)
    assert good["accept_length"] == pytest.approx(2.8)
    assert good["counters_update"] == "request_end"  # llama-server adds a request's counts when it ends
    assert good["per_position_acceptance_basis"] == "conditional" and good["per_position_marginal_basis"] == "marginal"
    assert good["drafts_per_s"] == pytest.approx(good["draft_tokens_per_s"] / 3, rel=0.02)  # 3 tokens a draft
    assert refused["alpha"] == 0 and [a["kind"] for a in refused["alerts"]] == ["not_working"]
    assert refused["alerts"][0]["text"].startswith("speculation not working")
    totals = record["totals"]
    for key in ("drafts", "drafted", "accepted"):
        assert totals[key] == sum(r[key] for r in rows)
    assert totals["running"] == 4 and totals["up"] == 3
    # α over the fleet: accepted over each server's verified positions (per 10 drafts: 24, 22, 10)
    verified = sum(r["drafts"] // 10 * per_ten for r, per_ten in zip(rows, (24, 22, 10), strict=True))
    assert other["alpha"] == pytest.approx(15 / 22, abs=1e-3)
    assert totals["alpha"] == pytest.approx(totals["accepted"] / verified, abs=1e-3)
    assert totals["acceptance_rate"] == pytest.approx(totals["accepted"] / totals["drafted"], abs=1e-3)


def test_once_csv_has_a_header_a_line_per_instance_and_the_fleet(
        fleet: list[Exporter], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = watch(capsys, *urls(fleet[:2]), "--once", "--csv")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("time,row,instance,engine,method,state,alpha,acceptance_rate,draft_yield")
    assert "drafts_per_s,draft_tokens_per_s" in lines[0] and "per_position_marginal" in lines[0]
    kinds = [line.split(",")[1] for line in lines[1:]]
    assert kinds[:3] == ["instance", "instance", "fleet"]
    assert set(kinds[3:]) <= {"load"}  # then a row per instance and level of running requests, if any
    assert lines[1].split(",")[2] == fleet[0].root and ",up," in lines[1]


def test_check_exits_1_when_an_alert_fires_and_0_when_none(
        fleet: list[Exporter], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = watch(capsys, *urls(fleet[:2]), "--once", "--check")
    assert (code, out.strip()) == (0, "no alerts"), err
    nobody = nobody_url()
    code, out, err = watch(capsys, *urls(fleet[:2]), "--url", nobody, "--once", "--check")
    assert code == 1, err
    (line,) = out.splitlines()
    assert line.startswith(f"  ! {nobody}: down: ")
    code, out, _ = watch(capsys, *urls(fleet), "--once", "--check")  # the refused drafts
    assert code == 1 and "speculation not working" in out


def test_check_needs_once_or_count(fleet: list[Exporter], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        watch(capsys, *urls(fleet[:2]), "--check")
    assert exited.value.code == 2
    assert "--check needs --once or --count" in capsys.readouterr().err


def test_a_target_that_hangs_is_down_by_the_deadline_and_delays_no_one(fleet: list[Exporter]) -> None:
    from specview.features.watch.model.fleet import State
    from specview.features.watch.source.direct import DirectFleet

    fleet[1].mode = "error"
    with exporters(1) as (hung,):
        source = DirectFleet([fleet[0].root, fleet[1].root, hung.root], deadline_s=1.0)
        try:
            source.connect()  # all three detected while they answer; then one hangs
            source.poll()
            hung.mode = "hang"
            began = time.monotonic()
            readings = source.poll()
            took = time.monotonic() - began
            again = source.poll()  # at once: its interrupted scrape may still be ending (down either way)
        finally:
            source.close()
    assert [r.state for r in readings] == [State.UP, State.DOWN, State.DOWN]
    assert "500" in str(readings[1].error)
    # down by a 1 s limit: the fleet's own deadline, or the HTTP client's timeout of the same second when
    # it ends first (on a loaded machine the poll's wait can wake after the client gave up)
    late = (fill("watcherr.direct.late", seconds=1.0),
            fill("backenderr.http.expired_request", root=hung.root, seconds=1.0, what=text("watcherr.doing.watching")))
    assert str(readings[2].error) in late, readings[2].error
    assert readings[0].sample is not None  # the good one answered in the same poll
    assert readings[2].engine == "llama-server"  # known from its detection
    assert took < 1.5, took  # the deadline, not the hung server's 30 s
    assert again[2].state is State.DOWN and again[0].state is State.UP


def test_a_targets_file_and_urls_together(fleet: list[Exporter], capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    targets = tmp_path / "fleet.txt"
    targets.write_text(f"# the fleet\n{fleet[1].root}  # the second\n\n{fleet[2].root}\n")
    code, out, err = watch(capsys, "--url", fleet[0].root, "--targets", str(targets), "--once", "--json")
    assert code == 0, err
    assert [r["instance"] for r in json.loads(out)["instances"]] == [s.root for s in fleet]


def test_on_alert_runs_once_per_window_with_the_alert_on_stdin(
        fleet: list[Exporter], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    nobody = nobody_url()
    log = tmp_path / "alerts.jsonl"
    script = tmp_path / "hook.py"
    script.write_text(f"import sys\nopen({str(log)!r}, 'a').write(sys.stdin.read() + '\\n')\n")
    code, _, err = watch(capsys, "--url", fleet[0].root, "--url", nobody, "--count", "4",
                         "--on-alert", f"{sys.executable} {script}", "--alert-window", "60")
    assert code == 0, err
    runs = [json.loads(line) for line in log.read_text().splitlines() if line]
    assert len(runs) == 1, runs  # four polls of a down target: one run in the window
    (alert,) = runs
    assert alert["kind"] == "down" and alert["instance"] == nobody and alert["window_s"] == 60
    assert alert["text"].startswith("down: ") and alert["since"].endswith("Z")


def test_on_alert_that_runs_past_its_timeout_is_stopped_and_said(
        fleet: list[Exporter], capfd: pytest.CaptureFixture[str]) -> None:
    nobody = nobody_url()
    began = time.monotonic()
    code, _, err = watch(capfd, "--url", fleet[0].root, "--url", nobody, "--once",
                         "--on-alert", f"{sys.executable} -c 'import time; time.sleep(60)'",
                         "--on-alert-timeout", "0.5")
    assert code == 0
    assert time.monotonic() - began < 20
    assert "ran past 0.5 s and was stopped" in err


def test_on_alert_output_is_bounded_and_sanitized(fleet: list[Exporter], capfd: pytest.CaptureFixture[str]) -> None:
    nobody = nobody_url()
    spew = "import sys; sys.stdout.write('\\x1b[2J' * 1000000); sys.exit(3)"
    code, _, err = watch(capfd, "--url", fleet[0].root, "--url", nobody, "--once",
                         "--on-alert", f"{sys.executable} -c \"{spew}\"")
    assert code == 0
    (line,) = [line for line in err.splitlines() if "--on-alert" in line]
    assert "exited with 3" in line and "\x1b" not in line and len(line) < 1000


@pytest.mark.parametrize(("lang", "heading", "up", "totals"), [("en", "instances up", "up", "fleet"),
                                                               ("zh", "个实例中", "在线", "集群")])
def test_the_lines_for_a_person_in_each_language(fleet: list[Exporter], capsys: pytest.CaptureFixture[str],
                                                 lang: str, heading: str, up: str, totals: str) -> None:
    code, out, err = watch(capsys, *urls(fleet[:2]), "--once", "--lang", lang)
    assert code == 0, err
    lines = out.splitlines()
    assert heading in lines[0] and len(lines) == 4  # heading, two instances, the fleet
    assert lines[1].startswith(f"  {fleet[0].root} · llama-server MTP (draft-mtp) · {up} · α 0.75")
    assert lines[3].startswith(f"  {totals} · α ")


def test_one_url_with_a_fleet_output_is_a_fleet_of_one_and_no_url_is_an_error(
        fleet: list[Exporter], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = watch(capsys, "--url", fleet[0].root, "--once", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert [r["instance"] for r in record["instances"]] == [fleet[0].root] and record["totals"]["up"] == 1
    code, out, err = watch(capsys, "--url", fleet[0].root, "--count", "1", "--json")  # the single-server watch
    assert code == 0 and "instances" not in json.loads(out) and "per_position_acceptance" in json.loads(out)
    with pytest.raises(SystemExit) as exited:
        watch(capsys, "--json")
    assert exited.value.code == 2 and "give the server to watch" in capsys.readouterr().err


def test_a_member_with_requests_running_and_no_counter_moving_is_stalled(capsys: pytest.CaptureFixture[str]) -> None:
    with exporters(2) as (moving, stuck):
        stuck.advance(10, (8, 6, 4), running=3)  # then nothing moves, with three requests running
        stop = threading.Event()

        def load() -> None:
            while not stop.wait(0.02):
                moving.advance(10, (8, 6, 4), running=1)

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        try:
            code, out, err = watch(capsys, "--url", moving.root, "--url", stuck.root, "--count", "3", "--json")
        finally:
            stop.set()
            thread.join()
    assert code == 0, err
    states = [[r["state"] for r in json.loads(line)["instances"]] for line in out.splitlines()]
    assert states[0] == ["up", "up"] and states[-1] == ["up", "stalled"]  # two still polls: stalled
    last = json.loads(out.splitlines()[-1])["instances"][1]
    assert [a["kind"] for a in last["alerts"]] == ["stalled"] and last["since"] is not None
    assert last["alerts"][0]["values"]["running"] == 3


def test_an_on_alert_command_that_cannot_be_split_is_said_before_any_server_is_asked(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        watch(capsys, "--url", nobody_url(), "--url", nobody_url(), "--once", "--on-alert", "notify 'unclosed")
    assert exited.value.code == 2 and "--on-alert cannot be split" in capsys.readouterr().err
