"""A GGUF file from someone else: its metadata is text from outside too, and its shapes are
counts from outside (arrays nested thousands deep, a width of 2^64 − 1, NaN, negative counts)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path

import gguf
import numpy as np
import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from specview.backends.local.gguf_info import MAX_DEPTH, read_gguf_info
from specview.boundary.text import sanitize
from specview.features.learn.app import LearnApp
from specview.features.learn.explain.context import RunContext
from specview.features.learn.fusion_screen import FusionScreen
from specview.features.learn.local_model import model_hint
from specview.features.learn.registry import lesson_named
from specview.kernel.errors import BackendError
from specview.texts.catalog import text
from specview.widgets.prose import plain
from tests.support.gguf_factory import write_fusion_gguf, write_tiny_llama
from tests.support.hostile_checks import (
    HOSTILE,
    MARKUP,
    OSC52,
    TITLE,
    assert_terminal_clean,
    json_lines,
    one_error_line,
)
from tests.support.limited_run import base_env, run_cli
from tests.support.notices import notices


@pytest.mark.llama
def test_hostile_gguf_metadata_is_one_clean_line(tmp_path: Path) -> None:
    """An architecture name carrying escapes: llama.cpp refuses it and quotes it; so do we, visibly."""
    path = tmp_path / f"model{OSC52}.gguf"
    writer_class = gguf.GGUFWriter

    class HostileWriter(writer_class):  # type: ignore[misc, valid-type]
        def __init__(self, file: str, arch: str, *args: object, **kwargs: object) -> None:
            super().__init__(file, arch + TITLE, *args, **kwargs)

    gguf.GGUFWriter = HostileWriter
    try:
        write_tiny_llama(path)
    finally:
        gguf.GGUFWriter = writer_class
    run = run_cli(["bench", "--target", str(path), "--max-tokens", "4", "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2, run.err
    assert "␛]0;PWNED-TITLE␇" in line or "\\x1b]0;PWNED-TITLE" in line
    assert_terminal_clean(run.stdout)
    assert_terminal_clean((tmp_path / "state").joinpath("specview", "log", "llama.log").read_bytes())


async def test_hostile_gguf_names_on_the_fusion_screen(tmp_path: Path) -> None:
    """Learn 8 reads a GGUF's tensor names and architecture (g): shown visibly, cut short, never markup."""
    path = write_fusion_gguf(tmp_path / "evil.gguf", arch="qwen35" + MARKUP,
                             extra_name=HOSTILE + "x" * 500 + ".nextn.eh_proj.weight")
    app = LearnApp(lesson_named("fusion"), run=RunContext(backend="file", target_path=str(path)))
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FusionScreen)
        await pilot.press("g")
        for _ in range(500):
            if screen.gguf is not None:
                break
            await pilot.pause(0.02)
        assert screen.gguf is not None and app.is_running
        shown = str(screen.query_one("#gguf", Static).render())
        assert "␛]0;PWNED-TITLE␇" in shown and "[link=https://evil.example]click" in shown
        assert_terminal_clean(shown.encode())
        assert "x" * 200 not in shown  # the name is cut short, with a mark


def shaped_gguf(path: Path, add: Callable[[gguf.GGUFWriter], None], arch: str = "qwen35") -> Path:
    """One MTP block's fusion tensors, like `write_fusion_gguf`, with the metadata `add` writes."""
    rng = np.random.default_rng(0)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))  # the gguf package packs nested arrays by recursion
    try:
        w = gguf.GGUFWriter(str(path), arch)
        add(w)
        w.add_tensor("blk.1.nextn.eh_proj.weight", rng.standard_normal((64, 128)).astype(np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
    finally:
        sys.setrecursionlimit(limit)
    return path


def nested(depth: int) -> list[object]:
    """[[[…[1]…]]]: arrays `depth` deep."""
    value: list[object] = [1]
    for _ in range(depth - 1):
        value = [value]
    return value


# name -> (what the file's metadata holds, what the one error line says)
SHAPES: dict[str, tuple[Callable[[gguf.GGUFWriter], None], str]] = {
    "arrays nested 5000 deep": (lambda w: w.add_array("qwen35.evil", nested(5000)),
                                "key 'qwen35.evil' nests arrays more than 4 deep; not read"),
    "embedding_length 2^64 - 1": (lambda w: w.add_uint64("qwen35.embedding_length", 2**64 - 1),
                                  "qwen35.embedding_length is 18446744073709551615, expected 1..1048576; not read"),
    "negative nextn_predict_layers": (lambda w: w.add_int32("qwen35.nextn_predict_layers", -1),
                                      "qwen35.nextn_predict_layers is -1, expected 0..16384; not read"),
    "NaN embedding_length": (lambda w: w.add_float32("qwen35.embedding_length", math.nan),
                             "qwen35.embedding_length must be an integer, got nan; not read"),
    "a head count of 2^32 - 1": (lambda w: w.add_uint32("qwen35.attention.head_count", 2**32 - 1),
                                 "qwen35.attention.head_count is 4294967295, expected 0..65536; not read"),
    "more MTP blocks than blocks": (lambda w: (w.add_block_count(2), w.add_uint32("qwen35.nextn_predict_layers", 3)),
                                    "qwen35.nextn_predict_layers is 3, more than the 2 blocks of the model"),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_absurd_gguf_shapes_are_one_clean_line(tmp_path: Path, name: str) -> None:
    """`learn 8 --json --target` reads the GGUF as Learn does: one line naming the key, exit 2."""
    add, expected = SHAPES[name]
    path = shaped_gguf(tmp_path / "shape.gguf", add)
    run = run_cli(["learn", "8", "--json", "--target", str(path)], base_env(tmp_path), timeout=60)
    assert not run.timed_out, f"{name}: still running after {run.elapsed:.0f} s"
    line = one_error_line(run.err)
    assert run.returncode == 2, run.err
    assert expected in line and str(path) in line, line
    assert run.stdout == b""


def test_learn_refuses_an_absurd_gguf_before_any_screen(tmp_path: Path) -> None:
    """`learn 8 --target` (the UI): the same line, before the terminal is taken over."""
    add, expected = SHAPES["negative nextn_predict_layers"]
    path = shaped_gguf(tmp_path / "shape.gguf", add)
    run = run_cli(["learn", "8", "--target", str(path)], base_env(tmp_path), timeout=60)
    assert run.returncode == 2 and expected in one_error_line(run.err)
    assert run.stdout == b""  # no screen was drawn


def test_learn_json_with_a_target_shows_what_g_reads(tmp_path: Path) -> None:
    path = write_fusion_gguf(tmp_path / "mtp.gguf", n_embd=64)
    run = run_cli(["learn", "8", "--json", "--target", str(path)], base_env(tmp_path), timeout=60)
    assert run.returncode == 0, run.err
    (numbers,) = json_lines(run.stdout)
    gguf_read = numbers["gguf"]
    assert isinstance(gguf_read, dict)
    assert (gguf_read["n_embd"], gguf_read["nextn_layers"]) == (64, 1)
    assert [t["in_trunk"] for t in gguf_read["tensors"]] == [True, False, False]


async def pressed_g(app: LearnApp, pilot: Pilot[None]) -> list[tuple[str, str, str]]:
    """Press g on Learn 8 and wait for what it says: (severity, title, message) of each notification."""
    await pilot.press("g")
    for _ in range(500):
        if notices(app):
            break
        await pilot.pause(0.02)
    await pilot.pause()
    return [(n.severity, n.title, n.message) for n in notices(app)]


@pytest.mark.parametrize("name", ["arrays nested 5000 deep", "NaN embedding_length"])
async def test_g_on_an_absurd_gguf_says_why_in_a_notification(tmp_path: Path, name: str) -> None:
    add, expected = SHAPES[name]
    path = shaped_gguf(tmp_path / "shape.gguf", add)
    app = LearnApp(lesson_named("fusion"), lang="zh", run=RunContext(backend="file", target_path=str(path)))
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        said = await pressed_g(app, pilot)
        assert app.is_running and isinstance(app.screen, FusionScreen) and app.screen.gguf is None
    # one error, titled in the user's language, its message already safe to show
    assert said == [("error", text("inputs.gguf.failed", "zh"), sanitize(said[0][2]))]
    # said in the screen's language: the key named, "not read" in Chinese
    key = expected.split()[1] if expected.startswith("key ") else expected.split()[0]
    assert key in said[0][2] and said[0][2].endswith("未读取"), said[0][2]


async def test_g_always_says_what_it_did(tmp_path: Path) -> None:
    """A GGUF read: a notification with what was found (the screen shows the rest); no model: why not."""
    path = write_fusion_gguf(tmp_path / "mtp.gguf", n_embd=64)
    app = LearnApp(lesson_named("fusion"), run=RunContext(backend="file", target_path=str(path)))
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        said = await pressed_g(app, pilot)
    assert said == [("information", "", "read mtp.gguf: d_model 64, MTP/NextN blocks 1, fusion tensors 3")]
    app = LearnApp(lesson_named("fusion"))
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        said = await pressed_g(app, pilot)
    assert [(kind, title) for kind, title, _ in said] == [("warning", "")]
    # why not, and how to get a model (plain spaces: a command copied from it runs)
    assert said[0][2] == plain(text("learn.fusion.no_model")) + " " + plain(model_hint("en", 8))
    assert "--demo" in said[0][2] and "\u00a0" not in said[0][2]


async def test_learn_1_says_why_its_model_is_missing(tmp_path: Path) -> None:
    path = shaped_gguf(tmp_path / "shape.gguf", SHAPES["embedding_length 2^64 - 1"][0])
    app = LearnApp(lesson_named("memory"), run=RunContext(backend="file", target_path=str(path)))
    async with app.run_test(size=(120, 60)) as pilot:
        for _ in range(200):
            if notices(app):
                break
            await pilot.pause(0.02)
        notes = [(n.title, n.message) for n in notices(app)]
        assert app.is_running
    assert len(notes) == 1 and notes[0][0] == text("inputs.gguf.failed")
    assert "qwen35.embedding_length is 18446744073709551615" in notes[0][1]


def test_arrays_are_walked_to_the_depth_bound_without_recursion(tmp_path: Path) -> None:
    """Arrays of arrays up to MAX_DEPTH deep (strings and numbers inside) are skipped and the file
    read; one level more is refused, naming the key; a Python recursion limit far below 5000 is
    never reached."""
    ok = shaped_gguf(tmp_path / "ok.gguf", lambda w: (w.add_array("qwen35.deep", [[[["a", "b"]], [[1.5]]]] * 3),
                                                      w.add_uint32("qwen35.embedding_length", 64)))
    assert read_gguf_info(ok).n_embd == 64
    too_deep = shaped_gguf(tmp_path / "deep.gguf", lambda w: w.add_array("qwen35.deep", nested(MAX_DEPTH + 1)))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        with pytest.raises(BackendError, match=f"'qwen35.deep' nests arrays more than {MAX_DEPTH} deep"):
            read_gguf_info(too_deep)
        with pytest.raises(BackendError, match="nests arrays"):
            read_gguf_info(shaped_gguf(tmp_path / "5000.gguf", SHAPES["arrays nested 5000 deep"][0]))
    finally:
        sys.setrecursionlimit(limit)
