"""A real tree run (tiny llama GGUFs, a noisy draft so that branches lose) in the live view: its lost
branches appear in the token view on `d` and in a replay of its recording, each as one ⟨…⟩ token
the inspector explains; a real chain run shows the what-if as a side-panel gauge, and `bench --json`
carries it with its basis."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.notices import notices

pytest.importorskip("llama_cpp")

from specview.backends.factory import make_backend
from specview.backends.local.backend import LlamaBackend
from specview.backends.local.options import LlamaOptions
from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.replay import ReplayOptions, make_replay_backend
from specview.features.live.app import SpecviewApp
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.lost_branches import branches
from specview.kernel.runspec import RunSpec
from specview.kernel.tree_shape import TreeShape
from specview.texts.catalog import text
from specview.widgets.legend import Legend
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.token_info import TokenInfo
from specview.widgets.token_view import TokenView
from tests.support.app_helpers import token_view, wait_finished, wait_until
from tests.support.gguf_factory import write_tiny_llama
from tests.support.recordings import recorded_rounds

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "the cat sat on"
N_TOKENS = 24


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("tree-view")
    return (write_tiny_llama(folder / "target.gguf", seed=0),
            write_tiny_llama(folder / "near.gguf", seed=0, noise=0.25))


def _spec(pair: tuple[Path, Path], **extra: object) -> RunSpec:
    target, draft = pair
    return RunSpec(prompt=PROMPT, max_tokens=N_TOKENS, temperature=0.0, **extra,
                   options=LlamaRunOptions(target=str(target), draft=str(draft), threads=1))  # type: ignore[arg-type]


def _lost(view: TokenView) -> list[TokenEvent]:
    return [t for t in view.tokens if t.status is TokenStatus.LOST]


async def _toggle_and_inspect(app: SpecviewApp, pilot: object, expected: int) -> None:
    """The branches are there but hidden; `d` shows them marked ⟨…⟩, the inspector explains one."""
    view = token_view(app)
    lost = _lost(view)
    assert len(lost) == expected > 0
    assert "⟨" not in view.visible_text()
    await pilot.press("d")  # type: ignore[attr-defined]
    assert TokenStatus.LOST not in view.hidden
    assert notices(app)[-1].message == text("tree.lost_shown")
    index = next(i for i, t in enumerate(view.tokens) if t.status is TokenStatus.LOST and t.text.strip())
    view.select(index)
    await pilot.pause()  # type: ignore[attr-defined]
    assert "⟨" in view.visible_text()
    said = str(app.live.query_one(TokenInfo).render())
    assert "branch that lost (tree)" in said and ("rank " in said or "below q's top" in said)
    await pilot.press("d")  # type: ignore[attr-defined]
    assert TokenStatus.LOST in view.hidden and view.selected is None


async def test_a_tree_runs_lost_branches_show_on_d_live_and_in_its_replay(pair: tuple[Path, Path],
                                                                         tmp_path: Path) -> None:
    file = tmp_path / "tree.jsonl"
    spec = _spec(pair, tree="3x3")
    app = SpecviewApp(spec, make_backend(spec), record=str(file))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        rounds = app.live.session.history
        leaves = sum(len(branches(r)) for r in rounds)
        assert any(len(r.lost_from) == len(r.lost) > 0 for r in rounds)
        await _toggle_and_inspect(app, pilot, leaves)
        live_lost = _lost(token_view(app))
        legend = str(app.live.query_one(Legend).render())
        assert "⟨lost⟩" in legend and "discardedˣ" not in legend  # a tree run's marks
    recorded = recorded_rounds(file)
    assert all(r.lost_from for r in recorded if r.lost), "the recording keeps what each lost token hangs from"
    replay = RunSpec(speed=0.0, options=ReplayOptions(recording=str(file)))
    app = SpecviewApp(replay, make_replay_backend(replay))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        assert _lost(token_view(app)) == live_lost
        await _toggle_and_inspect(app, pilot, len(live_lost))


async def test_a_chain_run_shows_the_what_if_gauge(pair: tuple[Path, Path]) -> None:
    spec = _spec(pair, gamma=3)
    app = SpecviewApp(spec, make_backend(spec))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        what_if = app.live.session.metrics.snapshot().what_if
        assert what_if is not None and what_if.rounds > 0 and what_if.rejected > 0
        gauge = app.live.query_one("#g-what_if", StatGauge)
        await wait_until(pilot, lambda: gauge.display)
        assert gauge.value.strip() == f"{what_if.width3 / what_if.rejected:.0%}"
        assert gauge.note.startswith(f"derived: q's ranks at the rejections of {what_if.rounds} rounds")
        assert f"width 3: {what_if.width3} of {what_if.rejected}" in gauge.note


async def test_a_simulated_run_has_no_what_if_row() -> None:
    spec = RunSpec(preset="qwen3.6-mtp", seed=1, speed=0.0, max_rounds=30)
    app = SpecviewApp(spec, make_backend(spec))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        assert not app.live.query_one("#g-what_if", StatGauge).display


def test_bench_json_carries_the_what_if_with_its_basis(pair: tuple[Path, Path]) -> None:
    target, draft = pair
    args = ["--target", str(target), "--draft", str(draft), "--prompt", PROMPT, "--max-tokens", str(N_TOKENS),
            "--threads", "1", "--temperature", "0", "--json"]
    chain = subprocess.run([sys.executable, "-m", "specview", "bench", "--gamma", "3", *args],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert chain.returncode == 0, chain.stderr
    what_if = json.loads(chain.stdout)["what_if"]
    assert what_if["basis"] == "rounds counted" and what_if["rounds"] > 0 and what_if["greedy"] is True
    assert what_if["width3"] == what_if["rank2"] + what_if["rank3"] and what_if["rejected"] > 0
    assert what_if["share_width3"] == round(what_if["width3"] / what_if["rejected"], 4)
    assert what_if["text"].startswith(f"what if (a tree): of {what_if['rejected']} rejected drafts")
    tree = subprocess.run([sys.executable, "-m", "specview", "bench", "--tree", "3x3", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert tree.returncode == 0, tree.stderr
    assert json.loads(tree.stdout)["what_if"] is None  # a tree verified its siblings: nothing to imagine


def test_a_sampled_tree_round_keeps_a_tree_a_recording_can_check(pair: tuple[Path, Path]) -> None:
    target, draft = pair
    backend = LlamaBackend(target, LlamaOptions(draft=str(draft), prompt=PROMPT, max_tokens=N_TOKENS, n_threads=1,
                                                temperature=1.0, seed=5, tree=TreeShape(3, 3)))
    try:
        engine = backend.engine
        assert engine.start()
        rounds = []
        while not engine.finished:
            rounds.append(engine.step())
    finally:
        backend.close()
    assert any(r.lost for r in rounds)
    for r in rounds:
        assert Round.from_dict(r.to_dict()) == r  # every lost token one depth below what it hangs from
        assert len(r.lost_from) == len(r.lost)
        assert sum(len(chain) for chain, _ in r.lost_chains()) >= len(r.lost)
