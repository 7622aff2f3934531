"""A server's run is recorded with the γ asked (the header comes before the first round); its
replay says the γ the server drafted and the one asked, as the live run did by its end."""

from __future__ import annotations

import json
from pathlib import Path

from specview.backends.remote.options import RemoteOptions
from specview.backends.replay import ReplayBackend
from specview.features.record.recorder import recording_header
from specview.kernel.backend import BackendInfo, BackendKind
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.kernel.unmeasured import GAMMA_SERVER
from specview.report.run_json import stats_dict

A, R, C = TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED


def _recording(path: Path, backend: BackendKind, asked: int, drafted: int) -> Path:
    info = BackendInfo(backend, "remote model", asked, 0.0, model="m")
    lines = [recording_header(info, RunSpec(gamma=asked, options=RemoteOptions(url="http://127.0.0.1:9/v1")))]
    for i in range(5):
        tokens = tuple(TokenEvent(k, "x", s, k) for k, s in enumerate([A] * (drafted - 1) + [R, C]))
        lines.append({"type": "round", **Round(i, drafted, tokens, None, None, 1.0 + 0.1 * i).to_dict()})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _replayed(path: Path) -> tuple[ReplayBackend, dict[str, object]]:
    backend = ReplayBackend(path, speed=0.0)
    session = Session(backend)
    pieces = [rnd.text for rnd in session.run_headless()]
    return backend, stats_dict(backend.recorded_info, session.metrics.snapshot(), "".join(pieces))


def test_a_replayed_server_run_says_the_gamma_it_drafted_and_the_one_asked(tmp_path: Path) -> None:
    backend, stats = _replayed(_recording(tmp_path / "r.jsonl", BackendKind.REMOTE, asked=3, drafted=6))
    assert stats["gamma"] == 6 and stats["gamma_asked"] == 3
    assert backend.info.gamma == 6 and any(n.id == GAMMA_SERVER for n in backend.info.notes)


def test_a_replay_that_drafted_as_asked_keeps_its_gamma(tmp_path: Path) -> None:
    _, same = _replayed(_recording(tmp_path / "same.jsonl", BackendKind.REMOTE, asked=4, drafted=4))
    assert same["gamma"] == 4 and same["gamma_asked"] is None
    # our own loops draft what was asked (or fewer, by choice): their γ is theirs, untouched
    _, ours = _replayed(_recording(tmp_path / "llama.jsonl", BackendKind.LLAMA, asked=4, drafted=2))
    assert ours["gamma"] == 4 and ours["gamma_asked"] is None
