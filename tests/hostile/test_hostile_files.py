"""The files specview writes, and the files replay reads, in a hostile folder: a link planted at
the name a report or an export would get, a file already there, a hard link to someone's file, a
FIFO, a device or a folder given as a recording, a 2 GiB first line, 4000 segments. Each case runs
specview in a child process under an address-space and a time limit (tests/support/limited_run.py): one
clean line and exit 2, or the file written where the user asked, mode 0600, and nothing written
anywhere else — never through a link."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.support.hostile_checks import SECRET, assert_no_secret, assert_terminal_clean, json_lines, one_error_line
from tests.support.hostile_server import Scenario, hostile_server
from tests.support.limited_run import ROOT, base_env, run_cli, run_tty

KEY_LINE = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHostileHostileHostileHostileHostile attacker@evil"
VICTIM = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOwnerOwnerOwnerOwnerOwnerOwnerOwner owner@home\n"
HEADER = {"type": "header", "format": "specview-recording", "version": 2, "specview": "0.1.0",
          "backend": {"name": "sim", "label": "qwen3.6-mtp"}, "settings": {"preset": "qwen3.6-mtp", "gamma": 1}}
LIMIT = 60.0  # seconds for one command: far above what each needs, far below a hang


def segment(texts: list[str]) -> list[dict[str, object]]:
    """One run: the header and one plain round per text."""
    return [HEADER, *({"type": "round", "index": i, "drafted": 0, "tokens": [{"text": t, "status": "plain"}],
                       "t_wall": 1.0 + i} for i, t in enumerate(texts))]


def write_recording(path: Path, segments: int = 1, texts: tuple[str, ...] = ("hello\n", KEY_LINE, "\n")) -> Path:
    """A recording whose tokens carry an authorized_keys line (what a planted link would deliver)."""
    lines = [json.dumps(line) for _ in range(segments) for line in segment(list(texts))]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def files_under(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry under `root`: a link's target, or a file's bytes (what must not change)."""
    found: dict[str, tuple[str, bytes]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found[str(path)] = ("link", os.readlink(path).encode())
        elif path.is_file():
            found[str(path)] = ("file", path.read_bytes())
    return found


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def victim(home: Path) -> Path:
    keys = home / ".ssh" / "authorized_keys"
    keys.parent.mkdir(parents=True, exist_ok=True)
    keys.write_text(VICTIM, encoding="utf-8")
    return keys


@pytest.mark.parametrize("dangling", [False, True], ids=["to a file", "dangling"])
@pytest.mark.parametrize("force", [False, True], ids=["plain", "--force"])
def test_replay_markdown_never_writes_through_a_link_planted_next_to_the_recording(
        tmp_path: Path, force: bool, dangling: bool) -> None:
    keys = victim(tmp_path)
    inbox = tmp_path / "shared" / "inbox"
    recording = write_recording(inbox / "run.jsonl")
    target = "../../.ssh/authorized_keys" if not dangling else "../../.ssh/new_keys"
    (inbox / "run.md").symlink_to(target)
    before = files_under(tmp_path)
    run = run_cli(["replay", str(recording), "--markdown", *(["--force"] if force else [])], base_env(tmp_path),
                  timeout=LIMIT)
    assert not run.timed_out
    line = one_error_line(run.err)
    assert run.returncode == 2 and run.stdout == b""
    assert f"cannot write {inbox / 'run.md'}: it is a symbolic link" in line, line
    assert keys.read_text(encoding="utf-8") == VICTIM and not (tmp_path / ".ssh" / "new_keys").exists()
    assert files_under(tmp_path) == before  # nothing written anywhere, the link left as it was


def test_an_existing_report_is_kept_without_force_and_replaced_with_it(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "run.jsonl")
    report = tmp_path / "run.md"
    report.write_text("my notes\n", encoding="utf-8")
    (tmp_path / "elsewhere.md").hardlink_to(report)  # replacing must not write into the shared inode
    env = base_env(tmp_path)

    kept = run_cli(["replay", str(recording), "--markdown"], env, timeout=LIMIT)
    assert one_error_line(kept.err) == f"specview: error: {report} exists; --force to overwrite"
    assert kept.returncode == 2 and report.read_text(encoding="utf-8") == "my notes\n"

    replaced = run_cli(["replay", str(recording), "--markdown", "--force"], env, timeout=LIMIT)
    assert replaced.returncode == 0, replaced.err
    assert replaced.out.strip() == str(report) and replaced.err == ""
    assert report.read_text(encoding="utf-8").startswith("# specview run: qwen3.6-mtp")
    assert KEY_LINE.split()[1] in report.read_text(encoding="utf-8")
    assert (tmp_path / "elsewhere.md").read_text(encoding="utf-8") == "my notes\n"
    assert mode(report) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["elsewhere.md", "run.jsonl", "run.md"]


def test_a_report_to_a_new_name_is_0600(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "run.jsonl", segments=2)
    out = tmp_path / "out" / "second.md"
    out.parent.mkdir()
    run = run_cli(["replay", f"{recording}#2", "--markdown", str(out)], base_env(tmp_path), timeout=LIMIT)
    assert run.returncode == 0 and run.out.strip() == str(out), run.err
    assert mode(out) == 0o600 and sorted(p.name for p in out.parent.iterdir()) == ["second.md"]


def test_record_refuses_an_existing_file_unless_forced_and_never_a_link(tmp_path: Path) -> None:
    keys = victim(tmp_path)
    env = base_env(tmp_path)
    file = tmp_path / "run.jsonl"
    file.write_text("keep\n", encoding="utf-8")
    (tmp_path / "twin.jsonl").hardlink_to(file)
    bench = ["bench", "--preset", "qwen3.6-mtp", "--rounds", "5", "--json", "--record"]

    kept = run_cli([*bench, str(file)], env, timeout=LIMIT)
    assert one_error_line(kept.err) == f"specview: error: {file} exists; --force to overwrite"
    assert kept.returncode == 2 and kept.stdout == b"" and file.read_text(encoding="utf-8") == "keep\n"

    replaced = run_cli([*bench, str(file), "--force"], env, timeout=LIMIT)
    assert replaced.returncode == 0, replaced.err
    (stats,) = json_lines(replaced.stdout)
    assert stats["rounds"] == 5 and mode(file) == 0o600
    assert file.read_text(encoding="utf-8").startswith('{"type": "header"')
    assert (tmp_path / "twin.jsonl").read_text(encoding="utf-8") == "keep\n"

    link = tmp_path / "link.jsonl"
    link.symlink_to(keys)
    for force in ([], ["--force"]):
        refused = run_cli([*bench, str(link), *force], env, timeout=LIMIT)
        line = one_error_line(refused.err)
        assert refused.returncode == 2 and "it is a symbolic link" in line, line
        assert keys.read_text(encoding="utf-8") == VICTIM and link.is_symlink()


def test_a_new_recording_is_0600(tmp_path: Path) -> None:
    file = tmp_path / "new.jsonl"
    run = run_cli(["bench", "--preset", "qwen3.6-mtp", "--rounds", "5", "--record", str(file)], base_env(tmp_path),
                  timeout=LIMIT)
    assert run.returncode == 0, run.err
    assert mode(file) == 0o600


def test_export_takes_a_new_name_past_links_planted_at_the_predictable_one(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "run.jsonl")
    exports, elsewhere = tmp_path / "exports", tmp_path / "elsewhere"
    exports.mkdir()
    config = tmp_path / "config" / "specview" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f"export_dir = {json.dumps(str(exports))}\n", encoding="utf-8")
    now = datetime.now()
    for second in range(-2, int(LIMIT) + 30):  # every name an export in the next minute could get
        stem = f"specview-qwen3.6-mtp-{(now + timedelta(seconds=second)).strftime('%Y%m%d-%H%M%S')}"
        for suffix in (".jsonl", ".md"):
            (exports / f"{stem}{suffix}").symlink_to(elsewhere / f"planted{suffix}")  # dangling
    run = run_tty(["replay", str(recording), "--speed", "0"], base_env(tmp_path),
                  keys=[("■ finished", b"e"), ("instead", b"q")], timeout=LIMIT)
    assert not run.timed_out and run.returncode == 0
    assert_terminal_clean(run.stdout)
    assert not elsewhere.exists()  # nothing written through a link
    written = sorted(p for p in exports.iterdir() if not p.is_symlink())
    assert [p.suffix for p in written] == [".jsonl", ".md"] and written[0].stem == written[1].stem
    stem = written[0].stem
    assert stem.endswith("-2") and (exports / f"{stem[:-2]}.md").is_symlink()
    assert run.notified(f"{stem[:-2]}.md existed: wrote {stem}.md instead")
    assert all(mode(p) == 0o600 for p in written)
    assert KEY_LINE.split()[1] in written[1].read_text(encoding="utf-8")
    assert json.loads(written[0].read_text(encoding="utf-8").splitlines()[0])["type"] == "header"


def test_sweep_markdown_is_refused_before_the_sweep_and_replaced_only_with_force(tmp_path: Path) -> None:
    keys = victim(tmp_path)
    report, link = tmp_path / "sweep.md", tmp_path / "link.md"
    report.write_text("my notes\n", encoding="utf-8")
    (tmp_path / "twin.md").hardlink_to(report)
    link.symlink_to(keys)
    answer = Scenario(content_type="application/json", events=[b'{"usage": {"completion_tokens": 4}}'], done=False)
    with hostile_server() as on, hostile_server() as off:
        on.scenario = off.scenario = answer
        sweep = ["sweep", "load", "--on", on.url, "--off", off.url, "--concurrency", "1", "--requests", "1",
                 "--max-tokens", "4", "--markdown"]
        env = base_env(tmp_path)
        for target, force, expected in ((report, [], f"{report} exists; --force to overwrite"),
                                        (link, ["--force"], f"report {link}: it is a symbolic link")):
            refused = run_cli([*sweep, str(target), *force], env, timeout=LIMIT)
            line = one_error_line(refused.err)
            assert refused.returncode == 2 and expected in line, line
        assert on.requests == off.requests == []  # refused before the sweep, not after it
        replaced = run_cli([*sweep, str(report), "--force"], env, timeout=LIMIT)
    assert replaced.returncode == 0, replaced.err
    assert report.read_text(encoding="utf-8").startswith("#") and mode(report) == 0o600
    assert (tmp_path / "twin.md").read_text(encoding="utf-8") == "my notes\n"
    assert keys.read_text(encoding="utf-8") == VICTIM and link.is_symlink()


def _crash(home: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """specview run with `argv` as its command line, its `presets` command broken: a bug."""
    script = textwrap.dedent(f"""
        import sys
        from specview.cli import main, presets_cmd
        def broken(as_json):
            raise RuntimeError("boom")
        presets_cmd.run_presets = broken
        sys.argv = ["specview", *{argv!r}]
        sys.exit(main(sys.argv[1:]))
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=LIMIT,
                          env=base_env(home), cwd=ROOT)


def crash_log(home: Path) -> Path:
    return home / "state" / "specview" / "log" / "crash.log"


def test_the_crash_log_is_0600_and_keeps_no_prompt_and_no_url_credentials(tmp_path: Path) -> None:
    log = crash_log(tmp_path)
    log.parent.mkdir(parents=True)
    log.write_text("--- an older entry\n", encoding="utf-8")
    log.chmod(0o644)  # an older specview's log: narrowed, kept, appended to
    prompt, other = "my private prompt about payroll", "second private words"
    url = f"http://alice:{SECRET}@127.0.0.1:9/v1?api_key=querysecret123&x=1"
    done = _crash(tmp_path, ["--prompt", prompt, f"--prom={other}", "--url", url, f"--url={url}", "presets"])
    assert done.returncode == 1
    line = one_error_line(done.stderr, prefix="specview: internal error (RuntimeError: boom)")
    assert f"the traceback is in {log}" in line
    logged = log.read_text(encoding="utf-8")
    assert logged.startswith("--- an older entry\n") and mode(log) == 0o600
    first = logged.splitlines()[1]
    assert first.endswith("specview --prompt <not logged> --prom=<not logged> --url http://127.0.0.1:9/v1 "
                          "--url=http://127.0.0.1:9/v1 presets"), first
    for needle in (prompt, other, "payroll", "alice", "querysecret123", "api_key"):
        assert needle not in logged and needle not in done.stderr, needle
    assert "in broken" in logged
    assert_no_secret(tmp_path)


def test_a_link_planted_at_the_crash_log_is_not_followed(tmp_path: Path) -> None:
    keys = victim(tmp_path)
    log = crash_log(tmp_path)
    log.parent.mkdir(parents=True)
    log.symlink_to(keys)
    done = _crash(tmp_path, ["presets"])
    assert done.returncode == 1
    line = one_error_line(done.stderr, prefix="specview: internal error (RuntimeError: boom)")
    assert f"the traceback could not be written to {log} (it is a symbolic link)" in line, line
    assert keys.read_text(encoding="utf-8") == VICTIM and log.is_symlink()


def test_the_llama_log_replaces_a_file_never_a_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from specview.backends.local.log import LlamaLog

    keys = victim(tmp_path)
    path = tmp_path / "llama.log"
    path.symlink_to(keys)
    monkeypatch.setenv("SPECVIEW_LLAMA_LOG", str(path))
    linked = LlamaLog()
    linked._open_file()
    assert linked.path is None and keys.read_text(encoding="utf-8") == VICTIM  # no log file, rather than that
    path.unlink()
    path.write_text("the last run's log\n", encoding="utf-8")
    (tmp_path / "twin.log").hardlink_to(path)
    log = LlamaLog()
    log._open_file()
    log.write(2, "loaded\n")
    assert path.read_text(encoding="utf-8") == "info: loaded\n" and mode(path) == 0o600
    assert (tmp_path / "twin.log").read_text(encoding="utf-8") == "the last run's log\n"


def _not_regular(tmp_path: Path, kind: str) -> tuple[Path, str]:
    if kind == "fifo":
        fifo = tmp_path / "run.jsonl"
        os.mkfifo(fifo)  # no writer: opening it to read blocks forever
        return fifo, "it is a FIFO"
    if kind == "device":
        return Path("/dev/zero"), "it is a device"  # endless: reading it to the first newline never ends
    folder = tmp_path / "run.jsonl"
    folder.mkdir()
    return folder, "it is a folder"


@pytest.mark.parametrize("how", [["--json"], ["--markdown"], ["--speed", "0"]], ids=["json", "markdown", "view"])
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_replay_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str, how: list[str]) -> None:
    file, what = _not_regular(tmp_path, kind)
    before = files_under(tmp_path)
    run = run_cli(["replay", str(file), *how], base_env(tmp_path), timeout=LIMIT)
    assert not run.timed_out, f"still running after {run.elapsed:.0f} s"
    line = one_error_line(run.err)
    assert run.returncode == 2 and run.stdout == b""
    assert line == f"specview: error: cannot replay {file}: {what}, not a regular file", line
    assert files_under(tmp_path) == before


def test_a_2_gib_first_line_is_named_as_too_long(tmp_path: Path) -> None:
    file = tmp_path / "huge.jsonl"
    with file.open("wb") as out:
        out.truncate(2 * 2**30)  # sparse: 2 GiB of NUL bytes and no newline, no disk used
    for how in (["--json"], ["--markdown"]):
        run = run_cli(["replay", str(file), *how], base_env(tmp_path), timeout=LIMIT)
        assert not run.timed_out, f"still running after {run.elapsed:.0f} s"
        line = one_error_line(run.err)
        assert run.returncode == 2
        assert line == (f"specview: error: cannot replay {file} line 1: the line is longer than 16 MiB "
                        "(not a recording line)"), line
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["huge.jsonl"]


def test_replay_json_is_linear_in_segments(tmp_path: Path) -> None:
    file = write_recording(tmp_path / "many.jsonl", segments=4000, texts=("a",))  # 1.2 MB
    # Measured in CPU seconds, which a busy machine does not stretch: about 2.5 s; reading the file
    # again for every segment, as before, took 22 s for 1000 segments and 90 s for 2000.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = run_cli(["replay", str(file), "--json"], base_env(tmp_path), timeout=120.0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert not run.timed_out, f"still running after {run.elapsed:.0f} s"
    assert run.returncode == 0, run.err
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 15.0, f"{cpu:.1f} CPU seconds"
    stats = json_lines(run.stdout)
    assert len(stats) == 4000 and all(s["rounds"] == 1 for s in stats)
