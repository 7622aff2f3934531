"""The documentation's commands, as users type them.

Every `specview …` line of a code block (bare, or after a `$ ` prompt) and every inline `specview …` in
README.md and docs/**/*.md is parsed by the real parser: a wrong flag or value fails here, named by its
file and line (`docs/engines.md:42`). The `--server` choices docs/engines.md lists are the parser's;
every subcommand's `--help` runs as a process; and each line of the "Using it" block of
docs/getting-started.md runs against the simulator: headless ones to their end, the live views in a real
terminal (tmux) until they draw what the line asks for, then `q`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from specview.cli.parser import build_parser
from specview.compat.stdlib_compat import SubParsersAction, parser_actions
from specview.kernel.errors import SpecviewError
from tests.support.docs_pages import DOCS, Page, page, pages
from tests.support.exporter import exporters
from tests.support.processes import stop
from tests.support.serve_run import free_port, listening
from tests.support.tmux_pane import tmux_pane
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
INLINE = re.compile(r"`(specview(?: [^`]*)?)`")
OPTIONAL = re.compile(r" \[([^\]]+)\]")
# placeholders the docs write for what a user fills in, and a value of the right shape for each
PLACEHOLDERS = {"N": "1", "FILE": "run.jsonl", "…": "x"}


def block_lines(doc: Page) -> list[tuple[int, str]]:
    """(line number, command) of every command line in a page's code blocks: a line that starts with
    `specview ` or `$ specview ` (the screenshot's header is indented, the architecture's `specview/` is
    a path, an error line `specview: …` is output)."""
    found = []
    for number, line in doc.code_lines():
        line = line.removeprefix("$ ")
        if line == "specview" or line.startswith("specview "):
            found.append((number, line))
    return found


def inline_commands(doc: Page) -> list[tuple[int, str]]:
    return [(number, found) for number, line in enumerate(doc.lines(), 1) for found in INLINE.findall(line)]


def usage_block() -> list[str]:
    """The commands of the "## Using it" block of docs/getting-started.md, without their comments."""
    after = page("docs/getting-started.md").text.split("\n## Using it\n", 1)[1]
    body = after.split("```\n", 2)[1]
    lines = [line.removeprefix("$ ") for line in body.splitlines()]
    return [command(line) for line in lines if line.startswith("specview")]


def command(line: str) -> str:
    return " ".join(shlex.split(line, comments=True))


def variants(line: str) -> list[list[str]]:
    """The argument lists a line stands for: without and with its `[optional]` parts, placeholders filled."""
    short, full = OPTIONAL.sub("", line), OPTIONAL.sub(r" \1", line)
    out = []
    for text in dict.fromkeys((short, full)):
        words = shlex.split(text, comments=True)[1:]
        out.append([PLACEHOLDERS.get(word, word) for word in words])
    return out


def parse_problem(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str | None:
    """What the real parser says against `argv` (None: it parses); a served command line too."""
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "command", None) == "serve" and args.app:
            build_parser().parse_args(args.app[1:] if args.app[0] == "--" else args.app)
    except SpecviewError as exc:
        return str(exc)
    except SystemExit as exc:  # `--help` (0), or a one-line error (2)
        return None if exc.code == 0 else f"exit {exc.code}: {capsys.readouterr().err.strip()}"
    return None


def wrong_commands(doc: Page, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """`file:line: command: what the parser says` for each command of a page the parser refuses."""
    wrong = [f"{doc.where(number)}: {line!r}: {problem}"
             for number, line in block_lines(doc) for argv in variants(line)
             if (problem := parse_problem(argv, capsys)) is not None]
    # prose names a command without what it needs (`specview replay`): only its options and values count
    wrong += [f"{doc.where(number)}: {line!r}: {problem}"
              for number, line in inline_commands(doc) for argv in variants(line)
              if (problem := parse_problem(argv, capsys)) is not None and "arguments are required" not in problem]
    return wrong


def test_the_docs_have_the_commands_this_test_reads() -> None:
    every = pages()
    assert every[0].name == "README.md" and {"docs/engines.md", "docs/watch.md", "docs/learn.md"} <= {
        doc.name for doc in every}
    assert sum(len(block_lines(doc)) for doc in every) >= 40
    assert sum(len(inline_commands(doc)) for doc in every) >= 20
    assert len(block_lines(every[0])) >= 10, "the README's first commands"
    assert len(usage_block()) >= 15


def test_every_command_in_the_docs_parses(capsys: pytest.CaptureFixture[str]) -> None:
    wrong = [line for doc in pages() for line in wrong_commands(doc, capsys)]
    assert not wrong, "\n".join(wrong)


def test_a_command_that_no_longer_parses_is_named_by_its_file_and_line(capsys: pytest.CaptureFixture[str]) -> None:
    planted = Page(DOCS / "planted.md", "# A page\n\n```console\n$ specview bench --roundz 5\n```\n"
                                        "Or inline: `specview --gama 5`.\n")  # read as if it were there
    wrong = wrong_commands(planted, capsys)
    assert [line.split(": ", 1)[0] for line in wrong] == ["docs/planted.md:4", "docs/planted.md:6"], wrong
    assert "--roundz" in wrong[0] and "--gama" in wrong[1]


def test_a_wrong_flag_or_value_would_fail(capsys: pytest.CaptureFixture[str]) -> None:
    """What the parse above catches: the docs once said `--server llama` (the choice is llama-server)."""
    assert parse_problem(["--url", "http://127.0.0.1:8080/v1", "--server", "llama"], capsys) is not None
    assert parse_problem(["bench", "--roundz", "5"], capsys) is not None  # no such option (--rounds)
    assert parse_problem(["--url", "http://127.0.0.1:8080/v1", "--server", "llama-server"], capsys) is None


def test_the_server_kinds_the_docs_list_are_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/engines.md ("Dialects") lists every `--server` kind; any other page that lists them agrees."""
    listed = re.findall(r"`--server ([a-z-]+(?:\|[a-z-]+)+)`", page("docs/engines.md").text)
    assert listed, "docs/engines.md lists the server kinds"
    listed += [kinds for doc in pages() if doc.name != "docs/engines.md"
               for kinds in re.findall(r"`--server ([a-z-]+(?:\|[a-z-]+)+)`", doc.text)]
    for kinds in listed:
        for kind in kinds.split("|"):
            assert parse_problem(["--server", kind, "presets"], capsys) is None, kind
    from specview.backends.remote.registry import server_ids

    shipped = set(server_ids())  # and the other way: a kind shipped is a kind the docs name
    assert all(shipped <= set(kinds.split("|")) for kinds in listed), (shipped, listed)


def subcommands() -> list[list[str]]:
    """Every subcommand's words, nested ones included (`sweep gamma`, `config check`)."""
    found: list[list[str]] = [[]]

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        for action in parser_actions(parser):
            if isinstance(action, SubParsersAction):
                for name, sub in action.choices.items():
                    found.append([*words, name])
                    walk(sub, [*words, name])

    walk(build_parser(), [])
    return found


def env(tmp: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SPECVIEW_") or k == "SPECVIEW_DIFF_LAST"}
    return {**clean, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "XDG_CONFIG_HOME": str(tmp / "config"),
            "SPECVIEW_CONFIG": str(tmp / "config.toml"), **extra}


def specview(tmp: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True,
                          timeout=timeout, env=env(tmp), cwd=tmp, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("words", subcommands(), ids=lambda words: " ".join(words) or "specview")
def test_every_subcommands_help(words: list[str], tmp_path: Path) -> None:
    out = specview(tmp_path, *words, "--help", timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: {' '.join(['specview', *words])}") and out.stderr == ""


# ---- the "Using it" block of docs/getting-started.md, line by line, against the simulator ----


@dataclass(frozen=True)
class Live:
    """A line that opens a UI: run it in tmux until `drawn(screen)`, then q (exit 0)."""

    drawn: Callable[[str], bool]
    what: str


def header(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def check_presets(tmp: Path) -> None:
    for argv in variants("specview presets [--json]"):
        out = specview(tmp, *argv)
        assert out.returncode == 0 and out.stderr == "", out.stderr
    ids = {p["id"] for p in json.loads(specview(tmp, "presets", "--json").stdout)}
    assert {"qwen3.6-mtp", "eagle3", "ngram"} <= ids


def check_bench_json(tmp: Path) -> None:
    out = specview(tmp, "bench", "--preset", "eagle3", "--rounds", "20000", "--json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert (stats["backend"], stats["preset"], stats["rounds"]) == ("sim", "eagle3", 20000)


def check_bench_table(tmp: Path) -> None:
    out = specview(tmp, "bench", "qwen3.6-mtp", "glm-5.2-mtp", "ngram", "--table")
    assert out.returncode == 0, out.stderr
    rows = [line.split()[0] for line in out.stdout.splitlines()[1:] if line.strip()]
    assert rows == ["qwen3.6-mtp", "glm-5.2-mtp", "ngram"], out.stdout


def check_serve(tmp: Path) -> None:
    """`specview serve` listens and prints its URL (on a free port: 8000 may be taken here)."""
    port = free_port()
    log = tmp / "serve.out"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "specview", "serve", "--port", str(port)], env=env(tmp),
                                cwd=tmp, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        wait_until(lambda: listening(port) and f"http://127.0.0.1:{port}/?token=" in log.read_text(), 60,
                   "specview serve to listen and print its URL")
    finally:
        stop(proc, group=True)


PARSED_ONLY = "needs a model or servers: parsed above (the Gemma sweep takes minutes on this machine)"
USAGE: dict[str, Live | Callable[[Path], None] | str] = {
    "specview": Live(lambda s: "specview sim · qwen3.6-mtp" in header(s), "the default preset"),
    "specview --preset glm-5.2-mtp --seed 7": Live(lambda s: "glm-5.2-mtp" in header(s) and "seed 7" in header(s),
                                                   "the preset and seed in the header"),
    "specview --temperature 0 --gamma 5": Live(lambda s: "γ 5 · T 0" in header(s), "γ 5 and T 0 in the header"),
    "specview --lang zh": Live(lambda s: "种子" in header(s) and "接受" in s, "the Chinese interface"),
    "specview presets --json": check_presets,  # written `specview presets [--json]`: both run
    "specview bench --preset eagle3 --rounds 20000 --json": check_bench_json,
    "specview bench qwen3.6-mtp glm-5.2-mtp ngram --table": check_bench_table,
    "specview compare qwen3.6-mtp glm-5.2-mtp": Live(lambda s: "compare · 2 runs" in header(s), "two panes"),
    "specview compare qwen3.6-mtp glm-5.2-mtp eagle3 deepseek-v3-mtp --speed 0":
        Live(lambda s: "compare · 4 runs" in header(s), "four panes"),
    "specview --record run.jsonl": Live(lambda s: "qwen3.6-mtp" in header(s), "the live view, recording"),
    "specview serve": check_serve,
    "specview watch --url http://127.0.0.1:8080": Live(lambda s: "specview watching · llama-server" in header(s),
                                                       "the monitor of the server it detected"),
    "specview sweep gamma --target T.gguf --draft ngram --gammas 1-6": PARSED_ONLY,
    "specview sweep load --on URL_A --off URL_B --concurrency 1,2,4,8": PARSED_ONLY,
    "specview diff --target T.gguf --draft ngram": PARSED_ONLY,
}


def usage_key(line: str) -> str:
    return OPTIONAL.sub(r" \1", line)


def test_every_usage_line_has_a_run() -> None:
    assert {usage_key(line) for line in usage_block()} == set(USAGE)


@pytest.fixture
def watched_server() -> Iterator[str]:
    """A llama-server look-alike whose counters move (tests/support/exporter.py)."""
    with exporters(1) as (server,):
        server.advance(10, (8, 6, 4), running=1)
        yield server.root


@pytest.mark.parametrize("line", [line for line, how in USAGE.items() if not isinstance(how, str)])
def test_the_usage_block_runs(line: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    assert line in {usage_key(usage) for usage in usage_block()}, "docs/getting-started.md no longer has this line"
    how = USAGE[line]
    assert not isinstance(how, str)  # the lines that need a model or servers are parsed above, not run
    if not isinstance(how, Live):
        how(tmp_path)
        return
    argv = shlex.split(line)[1:]
    if "watch" in argv:  # the docs' server is a user's; here one that serves /metrics
        argv[argv.index("--url") + 1] = request.getfixturevalue("watched_server")
    program = shlex.join([sys.executable, "-m", "specview", *argv])
    in_tmp = ["sh", "-c", f"cd {shlex.quote(str(tmp_path))} && exec {program}"]  # run.jsonl lands in tmp
    with tmux_pane(tmp_path / "tmux", in_tmp, 100, 30, {**env(tmp_path), "TERM": "xterm-256color"}) as pane:
        pane.wait_for(how.drawn, timeout=90, what=how.what)
        if "--record" in argv:  # rounds reach the file while the view runs
            wait_until(lambda: (tmp_path / "run.jsonl").is_file() and (tmp_path / "run.jsonl").stat().st_size > 0,
                       30, "the recording to grow")
        pane.keys("q")
        assert pane.wait_exit(timeout=30) == 0, pane.capture()
    if "--record" in argv:  # "specview replay run.jsonl plays it back": its statistics, headless
        replayed = specview(tmp_path, "replay", "run.jsonl", "--json")
        assert replayed.returncode == 0 and json.loads(replayed.stdout.splitlines()[0])["preset"] == "qwen3.6-mtp"


def test_the_learn_pages_table_has_a_row_for_every_screen() -> None:
    """A Learn screen is documented where users look, docs/learn.md: one row per lesson number, no more,
    no fewer."""
    from specview.features.learn.registry import lessons

    rows = [int(n) for n in re.findall(r"^\| (\d+) \| ", page("docs/learn.md").text, flags=re.M)]
    assert rows == [item.number for item in lessons()]
