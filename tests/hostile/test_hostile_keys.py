"""Which key reaches which server, and a key echoed back in disguise.

A real server on 127.0.0.1 records the Authorization header of every request. With
OPENAI_API_KEY in the environment and no --api-key-env, no request of `bench --url`, the live
view, `watch` or `sweep load` carries it, and one line (one notification in the UI) says so and
how to send it. A key the user names is sent, and masked everywhere; a server that reflects it
with joiners, soft hyphens or variation selectors between its characters, or in upper case,
never gets it shown on stderr, the screen, `--json` or a recording.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.disguise import disguises, json_revealed, revealed
from tests.support.hostile_checks import SECRET, assert_no_secret, assert_terminal_clean, json_lines, one_error_line
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.limited_run import Run, base_env, run_cli, run_tty

AMBIENT = "sk-AMBIENT-fedcba9876543210"  # in OPENAI_API_KEY, never named
NOTICE = "specview: warning: OPENAI_API_KEY is set but not sent to "
TO_SEND = "To send it: --api-key-env OPENAI_API_KEY"
LLAMA_METRICS = "llamacpp:spec_decode_num_drafts_total 0\nllamacpp:tokens_predicted_total 0\n"


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


@pytest.fixture(autouse=True)
def _fresh(server: HostileServer) -> None:
    server.requests.clear()
    server.authorizations.clear()


def streaming(*texts: str, model: str = "m") -> Scenario:
    """An OpenAI-compatible server streaming `texts`."""
    return Scenario(models=[{"id": model}], events=[chat_chunk(t) for t in texts])


def watched() -> Scenario:
    """A llama-server with --metrics: what `watch` polls (/metrics, /slots)."""
    return Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                    get={"/props": (200, "application/json", b'{"build_info": "b1"}'),
                         "/metrics": (200, "text/plain; version=0.0.4", LLAMA_METRICS.encode()),
                         "/slots": (200, "application/json", b"[]")})


def completions(model: str = "m") -> Scenario:
    """A server answering non-streamed /v1/completions (what `sweep load` sends)."""
    body = json.dumps({"choices": [{"text": "ok"}], "usage": {"completion_tokens": 4}}).encode()
    return Scenario(models=[{"id": model}], content_type="application/json", events=[body], done=False)


def ambient_env(home: Path, **more: str) -> dict[str, str]:
    return base_env(home, {"OPENAI_API_KEY": AMBIENT, **more})


def assert_one_notice(run: Run, server: HostileServer) -> None:
    lines = run.err.strip("\n").splitlines()
    notices = [line for line in lines if line.startswith(NOTICE)]
    assert len(notices) == 1, run.err
    assert notices[0].startswith(NOTICE + server.root) and notices[0].endswith(TO_SEND)
    assert AMBIENT[:8] not in run.err


def assert_never_sent(server: HostileServer) -> None:
    assert server.authorizations, "the server saw no request"
    assert set(server.authorizations) == {None}, server.authorizations


def test_bench_url_sends_no_ambient_key_and_says_so_once(server: HostileServer, tmp_path: Path) -> None:
    # a server that knows the key anyway (it may have it from elsewhere) still has it masked
    server.scenario = streaming("hello ", f"{AMBIENT} back", model=f"m-{AMBIENT}")
    run = run_cli(["bench", "--url", server.url, "--max-tokens", "8", "--json"], ambient_env(tmp_path))
    assert run.returncode == 0, run.err
    assert_never_sent(server)
    assert_one_notice(run, server)
    assert len(run.err.strip().splitlines()) == 1
    (stats,) = json_lines(run.stdout)
    assert AMBIENT[:8] not in run.out and stats["model"] == "m-***"
    assert_no_secret(tmp_path, AMBIENT)


def test_the_notice_speaks_the_users_language(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = streaming("hi")
    run = run_cli(["bench", "--url", server.url, "--max-tokens", "4", "--json", "--lang", "zh"],
                  ambient_env(tmp_path))
    assert run.returncode == 0, run.err
    (line,) = run.err.strip().splitlines()
    assert "已设置 OPENAI_API_KEY，但不会发送给 " + server.url in line and "--api-key-env OPENAI_API_KEY" in line


def test_watch_sends_no_ambient_key_to_metrics_or_slots(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = watched()
    run = run_cli(["watch", "--url", server.root, "--json", "--count", "1"], ambient_env(tmp_path))
    assert run.returncode == 0, run.err
    assert {"GET /metrics", "GET /slots"} <= set(server.requests)
    assert_never_sent(server)
    assert_one_notice(run, server)
    assert len(json_lines(run.stdout)) == 1
    server.authorizations.clear()
    named = run_cli(["watch", "--url", server.root, "--json", "--count", "1", "--api-key-env", "HOSTILE_KEY"],
                    ambient_env(tmp_path, HOSTILE_KEY=SECRET))
    assert named.returncode == 0 and named.err == "", named.err
    assert set(server.authorizations) == {f"Bearer {SECRET}"}


def test_sweep_load_sends_no_ambient_key_to_either_server(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = completions()
    run = run_cli(["sweep", "load", "--on", server.url, "--off", server.root, "--concurrency", "1",
                   "--requests", "1", "--max-tokens", "4", "--json"], ambient_env(tmp_path))
    assert run.returncode == 0, run.err
    assert sum(r.startswith("POST ") for r in server.requests) >= 4  # warm-up and one level, on and off
    assert_never_sent(server)
    # both servers named in the one line
    (line,) = run.err.strip().splitlines()
    assert line.startswith(NOTICE) and f"{server.url}, {server.root}" in line


def test_the_live_view_sends_no_ambient_key_and_notifies_once(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = streaming("one ", "two ", f"{AMBIENT}")
    run = run_tty(["--url", server.url], ambient_env(tmp_path), keys=[("■ finished", b"q")])
    assert not run.timed_out and run.returncode == 0
    assert_terminal_clean(run.stdout)
    assert_never_sent(server)
    assert run.notified("OPENAI_API_KEY is set but not sent to " + server.url)
    screen = run.screens[-1]
    assert sum("OPENAI_API_KEY" in toast for toast in _toasts(screen)) == 1
    assert AMBIENT[:8].encode() not in run.stdout


def _toasts(screen: str) -> list[str]:
    from tests.support.limited_run import toasts

    return toasts(screen)


def test_a_named_key_is_sent_to_every_request_and_masked(server: HostileServer, tmp_path: Path) -> None:
    record = tmp_path / "run.jsonl"
    server.scenario = streaming("your key: ", "@KEY@", " bye", model="m-@KEY@")
    env = ambient_env(tmp_path, HOSTILE_KEY=SECRET)
    run = run_cli(["bench", "--url", server.url, "--api-key-env", "HOSTILE_KEY", "--max-tokens", "8", "--json",
                   "--record", str(record)], env)
    assert run.returncode == 0, run.err
    assert set(server.authorizations) == {f"Bearer {SECRET}"}
    assert run.err == ""  # the user named a key: nothing to say
    (stats,) = json_lines(run.stdout)
    assert stats["model"] == "m-***" and "***" in stats["text"]
    assert_no_secret(tmp_path)
    assert_no_secret(tmp_path, AMBIENT)
    server.authorizations.clear()
    server.scenario = completions()
    load = run_cli(["sweep", "load", "--on", server.url, "--off", server.url, "--concurrency", "1", "--requests",
                    "1", "--max-tokens", "4", "--json", "--api-key-env", "HOSTILE_KEY"], env)
    assert load.returncode == 0, load.err
    assert set(server.authorizations) == {f"Bearer {SECRET}"} and load.err == ""


def test_the_config_names_a_key_too(server: HostileServer, tmp_path: Path) -> None:
    config = tmp_path / "config" / "specview" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'api_key = "{SECRET}"\n', encoding="utf-8")
    server.scenario = streaming("hi")
    run = run_cli(["bench", "--url", server.url, "--max-tokens", "4", "--json"], ambient_env(tmp_path))
    assert run.returncode == 0, run.err
    assert set(server.authorizations) == {f"Bearer {SECRET}"} and run.err == ""


def test_a_server_that_wants_a_key_says_how_to_send_one(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = Scenario(post_status=401, post_body=b'{"error": {"message": "no key"}}')
    run = run_cli(["bench", "--url", server.url, "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert "wants an API key (401: no key) and specview sent none" in line
    assert "--api-key-env OPENAI_API_KEY" in line


DISGUISED = disguises(SECRET)


@pytest.mark.parametrize("name", list(DISGUISED))
def test_a_disguised_reflection_never_shows_headless(server: HostileServer, tmp_path: Path, name: str) -> None:
    echoed = DISGUISED[name]
    third = len(echoed) // 3
    record = tmp_path / "run.jsonl"
    server.scenario = streaming("key: ", echoed[:third], echoed[third:2 * third], echoed[2 * third:] + " end",
                                model=f"model {echoed}")
    env = base_env(tmp_path, {"HOSTILE_KEY": SECRET})
    run = run_cli(["bench", "--url", server.url, "--api-key-env", "HOSTILE_KEY", "--max-tokens", "8", "--json",
                   "--record", str(record)], env)
    assert run.returncode == 0, run.err
    assert not json_revealed(run.out, SECRET) and not revealed(run.err, SECRET)
    assert not json_revealed(record.read_text(encoding="utf-8"), SECRET)
    (stats,) = json_lines(run.stdout)
    assert "***" in stats["model"] and "***" in stats["text"]
    # and in the one error line of a server that refuses the key, echoing it
    server.scenario = Scenario(post_status=401, post_body=json.dumps({"error": {"message": f"bad {echoed}"}}).encode())
    refused = run_cli(["bench", "--url", server.url, "--api-key-env", "HOSTILE_KEY", "--json"], env)
    line = one_error_line(refused.err)
    assert "refused the API key" in line and "***" in line and not revealed(line, SECRET)


@pytest.mark.parametrize("name", ["zwj", "soft hyphen", "vs16", "upper case, zwj"])
def test_a_disguised_reflection_never_shows_on_screen(server: HostileServer, tmp_path: Path, name: str) -> None:
    echoed = DISGUISED[name]
    half = len(echoed) // 2
    record = tmp_path / "run.jsonl"
    server.scenario = streaming("key: ", echoed[:half], echoed[half:] + " end", model=f"m {echoed}")
    run = run_tty(["--url", server.url, "--api-key-env", "HOSTILE_KEY", "--record", str(record)],
                  base_env(tmp_path, {"HOSTILE_KEY": SECRET}), keys=[("■ finished", b"q")])
    assert not run.timed_out and run.returncode == 0
    assert set(server.authorizations) == {f"Bearer {SECRET}"}  # named: sent with every request
    assert run.saw("***") and run.saw("key: ")
    assert not any(revealed(screen, SECRET) for screen in run.screens)
    assert not revealed(run.stdout.decode("utf-8", errors="replace"), SECRET)
    assert not json_revealed(record.read_text(encoding="utf-8"), SECRET)
