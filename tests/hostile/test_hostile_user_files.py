"""Files and keys the user's own setup hands specview, and copies of a key in disguise.

A FIFO (or a device) where a user preset should be is refused in one line instead of blocking
`presets`, `bench` and `config check` on its read; a GGUF read refuses one too. A server that
echoes the API key fullwidth, spaced out or with a combining mark after each character has it
masked in `--json` and in the recording as it is masked plain. A CSV cell that a spreadsheet would
read as a formula after trimming and NFKC gets an apostrophe. A `[keymap]` that moves `app.quit`
is honoured everywhere the quit key is said; ids and key names it cannot honour are refused by
`config check` with the reason.
"""

from __future__ import annotations

import csv
import io
import json
import os
import threading
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Footer, Static

from tests.support.app_helpers import sim_app, token_view, wait_until
from tests.support.exporter import PROPS, Exporter, exporters
from tests.support.hostile_checks import SECRET, assert_terminal_clean, json_lines
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.limited_run import base_env, run_cli

LIMIT = 30.0  # seconds for one command: far above what each needs, far below a hang
WARNING = "specview: warning: "


def preset_folder(home: Path) -> Path:
    folder = home / "config" / "specview" / "presets"  # base_env's XDG_CONFIG_HOME
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def config_file(home: Path, text: str) -> Path:
    path = home / "config" / "specview" / "config.toml"  # base_env's SPECVIEW_CONFIG
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- a FIFO where a user file should be -------------------------------------------------------


def test_a_fifo_preset_is_one_line_not_a_hang(tmp_path: Path) -> None:
    fifo = preset_folder(tmp_path) / "zz.toml"
    os.mkfifo(fifo)
    env = base_env(tmp_path)
    listed = run_cli(["presets"], env, timeout=LIMIT)
    assert not listed.timed_out, "specview presets blocked on the FIFO"
    assert listed.returncode == 0, listed.err  # a bad preset file is skipped, as docs/engines.md says
    (line,) = listed.err.strip("\n").splitlines()
    assert line.startswith(WARNING) and str(fifo) in line and "FIFO" in line, line
    assert "qwen3.6-mtp" in listed.out, "the other presets are still listed"
    bench = run_cli(["bench", "--rounds", "20", "--json"], env, timeout=LIMIT)
    assert not bench.timed_out and bench.returncode == 0, bench.err
    assert [line.startswith(WARNING) and "FIFO" in line for line in bench.err.strip("\n").splitlines()] == [True]
    checked = run_cli(["config", "check"], env, timeout=LIMIT)
    assert not checked.timed_out and checked.returncode == 2, checked.err
    (problem,) = [line for line in checked.out.splitlines() if line.startswith("  - ")]
    assert str(fifo) in problem and "FIFO" in problem, problem
    named = run_cli(["bench", "--preset", "zz", "--json"], env, timeout=LIMIT)
    assert not named.timed_out and named.returncode == 2
    assert_terminal_clean(named.stderr)
    assert "specview: error: unknown preset 'zz'" in named.err and "FIFO" in named.err, named.err


def released_in_time(call: object, fifo: Path) -> BaseException | None:
    """Run `call()` in a thread; if it is still blocked (on the FIFO) after LIMIT seconds, open the
    FIFO's other end to free it and fail. What it raised, else None."""
    assert callable(call)
    raised: list[BaseException] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            raised.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(LIMIT)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the reader gets end-of-file
        thread.join(LIMIT)
        pytest.fail(f"reading {fifo.name} blocked")
    return raised[0] if raised else None


def test_a_gguf_read_refuses_a_fifo(tmp_path: Path) -> None:
    from specview.backends.local.gguf_info import read_gguf_info
    from specview.kernel.errors import BackendError

    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)
    raised = released_in_time(lambda: read_gguf_info(fifo), fifo)
    assert isinstance(raised, BackendError) and "FIFO" in str(raised), raised


def test_a_preset_read_refuses_a_device(tmp_path: Path) -> None:
    from specview.catalog.presets import load_presets
    from specview.texts.catalog import Phrase

    folder = preset_folder(tmp_path)
    (folder / "zero.toml").symlink_to("/dev/zero")  # would read 1 MiB of NULs, then say "not UTF-8"
    problems: list[Phrase] = []
    load_presets(folder, problems)
    (problem,) = problems
    assert "zero.toml" in str(problem) and "device" in str(problem), problem


# --- a key echoed back in disguise ------------------------------------------------------------

_FULLWIDTH = {code: code + 0xFEE0 for code in range(0x21, 0x7F)}
DISGUISES = {
    "fullwidth": SECRET.translate(_FULLWIDTH),
    "spaced": " ".join(SECRET),
    "combining": "".join(ch + "\u0301" for ch in SECRET),
    "fullwidth, upper case, combining, spaced": " ".join(ch + "\u0308" for ch in SECRET.upper().translate(_FULLWIDTH)),
}
_SHOWN_FOR_INVISIBLE = "\ufffd" + "".join(chr(c) for c in range(0x2400, 0x2425))  # what sanitize shows instead


def readable(text: str) -> str:
    """`text` as a reader makes it out: NFKC, marks, spaces, invisible characters and the symbols
    shown for them left out, in one case."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    return "".join(ch for ch in decomposed if not unicodedata.category(ch).startswith(("M", "Z", "C"))
                   and not ch.isspace() and ch not in _SHOWN_FOR_INVISIBLE).casefold()


def shows_key(text: str) -> bool:
    return SECRET[:8].casefold() in readable(text)


def json_shows_key(lines: str) -> bool:
    return any(shows_key(json.dumps(json.loads(line), ensure_ascii=False)) for line in lines.splitlines() if line)


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


@pytest.mark.parametrize("name", list(DISGUISES))
def test_a_key_echoed_in_disguise_is_masked_in_json_and_the_recording(server: HostileServer, tmp_path: Path,
                                                                      name: str) -> None:
    echoed = DISGUISES[name]
    assert shows_key(echoed), "the disguise still reads as the key"
    third = len(echoed) // 3
    record = tmp_path / "run.jsonl"
    server.scenario = Scenario(models=[{"id": f"model {echoed}"}],
                               events=[chat_chunk(t) for t in ("key: ", echoed[:third], echoed[third:2 * third],
                                                                echoed[2 * third:] + " end")])
    run = run_cli(["bench", "--url", server.url, "--api-key-env", "HOSTILE_KEY", "--max-tokens", "8", "--json",
                   "--record", str(record)], base_env(tmp_path, {"HOSTILE_KEY": SECRET}), timeout=60)
    assert run.returncode == 0, run.err
    assert not json_shows_key(run.out) and not shows_key(run.err)
    assert not json_shows_key(record.read_text(encoding="utf-8"))
    (stats,) = json_lines(run.stdout)
    assert stats["model"] == "model ***" and stats["text"] == "key: *** end", stats


def test_mask_replaces_the_whole_disguised_span() -> None:
    from specview.boundary.secrets import add_secret, forget_secrets, mask

    forget_secrets()
    try:
        add_secret(SECRET)
        for echoed in DISGUISES.values():
            assert mask(f"key: {echoed} end") == "key: *** end"
        assert mask("a plain sentence, s k e t c h e d") == "a plain sentence, s k e t c h e d"
    finally:
        forget_secrets()


# --- CSV cells a spreadsheet would run ------------------------------------------------------------


@pytest.mark.parametrize("cell", ["=1+1", " =1+1", "  +1", "\u3000-1", "＝SUM(1,1)", "﹦1", "＋1", "－1", "＠SUM(A1)",
                                  "﹫x", "\t=1", "\r=1", "\u200b=1", "\u0301=1", "\n@x"])
def test_a_formula_after_trimming_and_nfkc_gets_an_apostrophe(cell: str) -> None:
    from specview.boundary.csv_cell import csv_cell

    assert csv_cell(cell) == "'" + cell


@pytest.mark.parametrize("value", ["draft-mtp", "MTP (draft-mtp)", "a=b", "", "http://127.0.0.1:8080"])
def test_other_cells_are_written_as_they_are(value: str) -> None:
    from specview.boundary.csv_cell import csv_cell

    assert csv_cell(value) == value
    assert csv_cell(None) == "" and csv_cell(-0.5) == "-0.5" and csv_cell(3) == "3"


@pytest.fixture
def formula_fleet() -> Iterator[tuple[Exporter, Exporter]]:
    with exporters(2) as (good, evil):
        evil.props = {**PROPS, "default_generation_settings": {"params": {"speculative.types": "＝SUM(1,1)"}}}
        yield good, evil


def test_a_fullwidth_formula_from_a_server_is_quoted_in_watch_csv(formula_fleet: tuple[Exporter, Exporter],
                                                                 tmp_path: Path) -> None:
    good, evil = formula_fleet
    run = run_cli(["watch", "--url", good.root, "--url", evil.root, "-d", "0.2", "--once", "--csv"],
                  base_env(tmp_path), timeout=60)
    assert run.returncode == 0 and not run.timed_out, run.err
    rows = list(csv.DictReader(io.StringIO(run.out)))
    (evil_row,) = [row for row in rows if row["instance"] == evil.root]
    assert evil_row["method"].startswith("'＝SUM("), evil_row


# --- a keymap that moves the quit key -------------------------------------------------------------


def footer_keys(screen: object) -> list[tuple[str, str]]:
    from textual.screen import Screen

    assert isinstance(screen, Screen)
    return [(key.key, key.description) for footer in screen.query(Footer) for key in footer.children
            if hasattr(key, "key")]


async def test_quit_moved_to_f24_quits_on_f24_and_not_on_q() -> None:
    from specview.texts.catalog import text
    from specview.tui.help_screen import HelpScreen

    app = sim_app(speed=30.0)
    app.set_keymap({"app.quit": "f24"})
    quit_label = text("keys.app.quit.label")
    async with app.run_test(size=(160, 36)) as pilot:
        await wait_until(pilot, lambda: token_view(app).token_count > 5)
        keys = footer_keys(app.screen)
        assert ("f24", quit_label) in keys and ("q", quit_label) not in keys, keys
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        listed = str(app.screen.query_one("#help-keys", Static).render()).splitlines()
        tip = text("keys.app.quit.tip")
        assert any(line.split()[:1] == ["f24"] and line.endswith(tip) for line in listed), listed
        assert not any(line.split()[:1] == ["q"] and line.endswith(tip) for line in listed), listed
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code is None and app.is_running, "q still quits"
        await pilot.press("f24")
        await wait_until(pilot, lambda: app.return_code == 0)


async def test_the_learn_home_says_the_quit_key_in_effect() -> None:
    from specview.features.learn.app import LearnApp
    from specview.features.learn.home_screen import LearnHome
    from specview.features.learn.index_screen import LearnIndex

    app = LearnApp(None, lang="zh", keymap={"app.quit": "f24", "app.learn": "f9"})
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LearnIndex))
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LearnHome))
        said = str(app.screen.query_one("#learn-home", Static).render())
        assert "f24" in said and "f9" in said and " q " not in said and " l " not in said, said
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code is None
        await pilot.press("f24")
        await wait_until(pilot, lambda: app.return_code == 0)


@pytest.mark.parametrize(("entry", "said"), [
    ('"app.palette" = "f5"', "'app.palette' is Textual's own binding"),
    ('"app.quit" = "ctlr+k"', "'ctlr+k' is no key"),
    ('"live.pause" = "k,spcae"', "'spcae' is no key"),
])
def test_config_check_refuses_what_a_keymap_cannot_move(tmp_path: Path, entry: str, said: str) -> None:
    config = config_file(tmp_path, f"[keymap]\n{entry}\n")
    run = run_cli(["config", "check"], base_env(tmp_path), timeout=LIMIT)
    assert run.returncode == 2, run.out
    (problem,) = [line for line in run.out.splitlines() if line.startswith("  - ")]
    assert problem.startswith(f"  - {config}: [keymap] ") and said in problem, problem


def test_config_check_takes_keys_textual_knows(tmp_path: Path) -> None:
    config_file(tmp_path, '[keymap]\n"app.quit" = "f24,ctrl+shift+q"\n"live.pause" = "question_mark,K,alt+up"\n'
                '"app.help" = "f35,kp_begin,é"\n')
    run = run_cli(["config", "check"], base_env(tmp_path), timeout=LIMIT)
    assert run.returncode == 0, run.out
