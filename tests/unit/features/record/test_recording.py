"""Recording and replay: identical stats, crash safety, clear errors, no secrets (the live view: tests/app)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from specview.backends.factory import make_backend
from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.replay import ReplayBackend, ReplayOptions, make_replay_backend
from specview.boundary.secrets import add_secret, forget_secrets, public_url
from specview.features.live.bench_command import bench_one
from specview.features.live.run_text import notes_text
from specview.features.record.recorder import (
    Recorder,
    check_record_path,
    header_record,
    recording_header,
    start_recording,
)
from specview.features.record.recording import VERSION, Header, read_recording, scan_headers
from specview.kernel.errors import BackendError, RecordingError
from specview.kernel.events import Basis, Calibration, Reconcile, Round, StreamItem, TokenEvent, TokenStatus
from specview.kernel.gamma_choice import GammaChoice, Why
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.kernel.stream_kinds import RECORDED
from specview.kernel.totals import CrossChecked, Totals
from tests.support.recordings import record_sim, recorded_rounds

ENV = {**os.environ, "NO_COLOR": "1"}


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True,
                          timeout=timeout, env=env or ENV, stdin=subprocess.DEVNULL)




def test_replay_json_is_identical_to_the_bench_run_that_recorded_it(tmp_path: Path) -> None:
    file = tmp_path / "run.jsonl"
    made = cli("bench", "--preset", "glm-5.2-mtp", "--seed", "11", "--rounds", "400", "--temperature", "0.6",
               "--record", str(file), "--json")
    assert made.returncode == 0, made.stderr
    replayed = cli("replay", str(file), "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == made.stdout
    stats = json.loads(replayed.stdout)
    assert stats["backend"] == "sim" and stats["rounds"] == 400 and stats["seed"] == 11
    header = next(iter(read_recording(file)))
    assert isinstance(header, Header)
    assert header.data["format"] == "specview-recording" and header.version == 5
    assert header.section("settings")["preset"] == "glm-5.2-mtp"
    assert header.section("settings")["temperature"] == 0.6


def test_kill_9_while_recording_leaves_a_file_that_replays_to_the_last_full_round(tmp_path: Path) -> None:
    file = tmp_path / "killed.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "specview", "bench", "--preset", "deepseek-v3-mtp",
                             "--seed", "9", "--rounds", "10000000", "--record", str(file), "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while (not file.exists() or file.stat().st_size < 150_000) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        assert file.stat().st_size >= 150_000, "the recording did not grow"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL

    data = file.read_bytes()
    complete = data.count(b"\n")  # header, calibration, full rounds; anything after the last newline is torn
    full_rounds = complete - 2
    assert full_rounds > 50
    out = cli("replay", str(file), "--json")
    if data.endswith(b"\n"):  # killed between two writes: a clean file
        assert out.returncode == 0, out.stderr
    else:
        assert out.returncode == 2
        assert f"line {complete + 1}" in out.stderr and "incomplete" in out.stderr
    stats = json.loads(out.stdout)
    assert stats["rounds"] == full_rounds

    # The prefix is exactly the run that made it, cut at that round.
    spec = RunSpec(preset="deepseek-v3-mtp", seed=9, speed=0.0, max_rounds=full_rounds)
    assert stats == bench_one(spec, full_rounds).stats

    # Tear the last line by hand, so the torn case is checked whatever the kill hit.
    torn = tmp_path / "torn.jsonl"
    lines = data[: data.rindex(b"\n") + 1].splitlines(keepends=True)
    torn.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    out = cli("replay", str(torn), "--json")
    assert out.returncode == 2
    assert f"line {len(lines)}" in out.stderr and "incomplete" in out.stderr
    assert f"cover the {full_rounds - 1} rounds" in out.stderr
    assert json.loads(out.stdout)["rounds"] == full_rounds - 1


def test_a_corrupt_middle_line_is_named_and_the_prefix_still_replays(tmp_path: Path) -> None:
    file = tmp_path / "bad.jsonl"
    record_sim(file, 120)
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[49] = lines[49][:40] + "#garbage#" + lines[49][40:]  # line 50 = round index 47 (after header, calibration)
    file.write_text("".join(lines), encoding="utf-8")

    out = cli("replay", str(file), "--json")
    assert out.returncode == 2
    err = out.stderr.strip()
    assert err.startswith("specview: error:") and err.count("\n") == 0
    assert str(file) in err and "line 50" in err and "not valid JSON" in err
    assert json.loads(out.stdout) == record_sim(tmp_path / "prefix.jsonl", 47)

    # The reader yields everything before the bad line, then raises.
    items = []
    with pytest.raises(RecordingError, match="line 50"):
        items.extend(read_recording(file))
    assert len(items) == 49 and isinstance(items[0], Header)


def test_an_unknown_version_is_refused_with_file_and_line(tmp_path: Path) -> None:
    file = tmp_path / "future.jsonl"
    record_sim(file, 5)
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["version"] = 99
    file.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")

    out = cli("replay", str(file), "--json")
    assert out.returncode == 2 and out.stdout == ""
    assert str(file) in out.stderr and "line 1" in out.stderr and "version 99" in out.stderr
    with pytest.raises(BackendError, match=r"line 1.*version 99"):
        make_replay_backend(RunSpec(options=ReplayOptions(recording=str(file))))


def test_version_1_recordings_still_replay_but_may_not_reconcile(tmp_path: Path) -> None:
    file = tmp_path / "old.jsonl"
    record_sim(file, 5)
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["version"] = 1
    assert json.loads(lines[1])["type"] == "calibration"  # version 1 and 2 files have none
    file.write_text(json.dumps(header) + "\n" + "".join(lines[2:]), encoding="utf-8")
    assert len(recorded_rounds(file)) == 5
    with file.open("a", encoding="utf-8") as f:
        f.write('{"type": "reconcile", "first_index": 0, "rounds": []}\n')
    with pytest.raises(RecordingError, match=r"line 7: unknown line type 'reconcile'"):
        list(read_recording(file))


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "no such file"),
        ("", "empty"),
        ('{"type": "round", "index": 0}\n', "line 1: not a specview recording"),
        ("hello\n", "line 1: not valid JSON"),
        ('{"type": "header", "format": "other", "version": 1}\n', "line 1: not a specview recording"),
    ],
)
def test_files_that_are_not_recordings(tmp_path: Path, content: str | None, needle: str) -> None:
    file = tmp_path / "x.jsonl"
    if content is not None:
        file.write_text(content, encoding="utf-8")
    with pytest.raises(BackendError, match=needle) as caught:
        make_replay_backend(RunSpec(options=ReplayOptions(recording=str(file))))
    assert str(file) in str(caught.value)


def test_the_header_holds_no_secret(tmp_path: Path) -> None:
    file = tmp_path / "secret.jsonl"
    env = {**ENV, "OPENAI_API_KEY": "sk-test-SECRET", "MY_TOKEN": "tok-OTHER-SECRET"}
    out = cli("bench", "--rounds", "20", "--record", str(file), "--api-key-env", "MY_TOKEN",
              "--prompt", "keys: sk-test-SECRET", "--json", env=env)
    assert out.returncode == 0, out.stderr
    text = file.read_text(encoding="utf-8")
    assert "sk-test-SECRET" not in text and "tok-OTHER-SECRET" not in text
    header = next(iter(read_recording(file)))
    assert isinstance(header, Header)
    assert header.section("settings")["api_key_env"] == "MY_TOKEN"  # the name is kept, never the value
    assert header.data["prompt"] == "keys: ***"
    assert public_url("https://user:pw@host.example:8443/v1?api_key=abc#x") == "https://host.example:8443/v1"


def test_a_nested_secret_in_the_header_is_masked_once_and_stays_masked(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The header is masked by the one tree-masker, once (`dumps` does not walk it again), and a
    secret registered after that is still masked when the header is written."""
    from specview.boundary import jsonio

    walked: list[str] = []
    clean = jsonio._clean

    def counting(value: object, pattern: object) -> object:
        if isinstance(value, str) and ("SECRET" in value or "***" in value):
            walked.append(value)
        return clean(value, pattern)  # type: ignore[arg-type]

    monkeypatch.setattr(jsonio, "_clean", counting)
    monkeypatch.setenv("MY_TOKEN", "tok-ENV-ONLY-SECRET")
    target = "/models/tok-ENV-ONLY-SECRET/t.gguf"
    spec = RunSpec(prompt="a sk-registered-SECRET, a tok-ENV-ONLY-SECRET and a late-LATER-value",
                   api_key_env="MY_TOKEN", options=LlamaRunOptions(target=target))
    forget_secrets()
    add_secret("sk-registered-SECRET")
    try:
        header = recording_header(make_backend(RunSpec()).info, spec)
        Recorder(tmp_path / "once.jsonl", header).close()
        assert sorted(walked) == sorted([spec.prompt, target])  # walked once, by `masked`; not by dumps
        assert header["models"]["target"] == "/models/***/t.gguf"
        assert header["prompt"] == "a ***, a *** and a late-LATER-value"
        once = (tmp_path / "once.jsonl").read_text(encoding="utf-8")
        assert "SECRET" not in once and once.count("***") == 3
        add_secret("late-LATER-value")  # learnt after the header was masked: masked when it is written
        Recorder(tmp_path / "late.jsonl", header).close()
        late = (tmp_path / "late.jsonl").read_text(encoding="utf-8")
        assert "LATER" not in late and "SECRET" not in late and late.count("***") == 4
    finally:
        forget_secrets()


def test_later_sessions_in_one_program_append_runs_and_each_replays(tmp_path: Path) -> None:
    file = tmp_path / "runs.jsonl"
    first = record_sim(file, 30, preset="qwen3.6-mtp")
    second = record_sim(file, 40, preset="glm-5.2-mtp")
    assert [h.line for h in scan_headers(file)] == [1, 33]
    second_run = RunSpec(options=ReplayOptions(recording=f"{file}#2"))
    assert make_replay_backend(second_run).recorded_info.preset == "glm-5.2-mtp"
    with pytest.raises(BackendError, match="holds 2 run"):
        make_replay_backend(RunSpec(options=ReplayOptions(recording=f"{file}#3")))
    backend = ReplayBackend(file, segment=2, speed=0.0)
    session = Session(backend)
    assert [r.index for r in session.run_headless()] == list(range(40))
    assert session.metrics.rounds == 40 == second["rounds"]
    assert first["rounds"] == 30


def test_print_stats_prints_one_line_per_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from specview.features.record.command import print_stats

    file = tmp_path / "two.jsonl"
    first = record_sim(file, 10)
    second = record_sim(file, 12, seed=6)
    assert print_stats(str(file)) == 0
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == [first, second]
    assert print_stats(f"{file}#2") == 0
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == [second]


def test_replay_keeps_the_recorded_pace_scaled_by_speed(tmp_path: Path) -> None:
    file = tmp_path / "pace.jsonl"
    record_sim(file, 20)
    rounds = recorded_rounds(file)
    recorded = rounds[-1].t_wall - rounds[0].t_wall + (rounds[0].t_draft_s or 0) + (rounds[0].t_verify_s or 0)
    for speed in (2.0, 0.0):
        backend = ReplayBackend(file, speed=speed)
        start = time.monotonic()
        replayed = [r for r in backend.rounds(threading.Event()) if isinstance(r, Round)]
        took = time.monotonic() - start
        assert replayed == rounds
        if speed:
            assert took >= 0.9 * recorded / speed
        else:
            assert took < recorded / 2
    info = ReplayBackend(file).info
    assert info.backend == "replay" and info.label == "qwen3.6-mtp" and info.virtual_clock
    assert info.gamma == 3 and info.seed == 5
    assert [note.id for note in info.notes] == ["replay", "sim"], "the replay's note, then the recorded run's"
    assert notes_text(info, "en").startswith("replay of a sim run recorded 20")


def test_check_record_path(tmp_path: Path) -> None:
    assert check_record_path(tmp_path / "ok.jsonl") == tmp_path / "ok.jsonl"
    with pytest.raises(BackendError, match="does not exist"):
        check_record_path(tmp_path / "missing" / "x.jsonl")
    with pytest.raises(BackendError, match="is a folder"):
        check_record_path(tmp_path)


def test_a_stopped_recorder_ignores_late_rounds(tmp_path: Path) -> None:
    file = tmp_path / "late.jsonl"
    spec = RunSpec(preset="qwen3.6-mtp", seed=1, speed=0.0, max_rounds=3)
    session = Session(make_backend(spec))
    recorder = start_recording(session, file, spec)
    rounds = list(session.run_headless())
    recorder.close()
    recorder(rounds[0])
    assert recorder.rounds_written == 3 and len(recorded_rounds(file)) == 3


def test_every_kind_of_stream_item_is_written_as_its_line_and_read_back(tmp_path: Path) -> None:
    """The recorder and the reader both go by kernel/stream_kinds.py: each recorded kind is one line of
    its type and reads back equal; `--gamma auto`'s decisions are not recorded; every line type is
    one this version of the format may hold, and a file older than a line type refuses that line."""
    tokens = (TokenEvent(1, "b", TokenStatus.ACCEPTED, 0), TokenEvent(2, "c", TokenStatus.BONUS, 1))
    first, second = Round(0, 1, tokens, 0.001, 0.002, 0.0), Round(1, 1, tokens, 0.001, 0.002, 1.0)
    items: list[StreamItem] = [Calibration(Basis.MEASURED, 0.01, (0.01, 0.011)), first,
                               GammaChoice(round=1, gamma=3, why=Why.PAYS), Reconcile(0, (first, second)),
                               Totals(drafted=4, accepted=2, tokens=6), CrossChecked("/metrics", 4, 2)]
    file = tmp_path / "kinds.jsonl"
    recorder = Recorder(file, header_record(backend={"name": "sim"}))
    for item in items:
        recorder(item)
    recorder.close()
    kept = [item for item in items if not isinstance(item, GammaChoice)]
    assert [item for item in read_recording(file) if not isinstance(item, Header)] == kept
    lines = [json.loads(line)["type"] for line in file.read_text().splitlines()]
    assert lines == ["header", "calibration", "round", "reconcile", "totals", "check"]
    assert all(recorded.since <= VERSION for recorded in RECORDED.values())
    old = tmp_path / "old.jsonl"
    old.write_text(file.read_text().replace('"version": 5', '"version": 3', 1))
    with pytest.raises(RecordingError, match="line 5"):
        list(read_recording(old))  # totals came in version 4
