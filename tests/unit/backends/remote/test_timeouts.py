"""How long specview waits on a server: the defaults, the flags and the config keys that change them."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.backends.remote.backend import timeouts_of
from specview.backends.remote.timeouts import PROBE_S, Timeouts
from specview.catalog.config import load_config
from specview.cli.parser import build_parser
from specview.cli.runspec_args import spec_from_args


def test_the_defaults() -> None:
    t = Timeouts()
    assert (t.connect, t.request, t.read, t.stream) == (5.0, 30.0, 60.0, 3600.0)
    assert t.probe == PROBE_S and Timeouts(request=2.0).probe == 2.0


def test_flags_then_config_then_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text("request_timeout = 7\nstream_timeout = 120\nread_timeout = 9.5\n")
    monkeypatch.setenv("SPECVIEW_CONFIG", str(config))
    args = build_parser().parse_args(["bench", "--url", "http://127.0.0.1:1/v1", "--connect-timeout", "2",
                                      "--read-timeout", "3"])
    spec = spec_from_args(args)
    assert timeouts_of(spec) == Timeouts(connect=2.0, request=7.0, read=3.0, stream=120.0)


def test_a_bad_timeout_in_the_config_is_reported(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('request_timeout = "soon"\nconnect_timeout = -1\nstream_timeout = true\n')
    loaded = load_config(config)
    assert loaded.request_timeout is None and loaded.connect_timeout is None and loaded.stream_timeout is None
    assert sum("must be a number of seconds" in str(p) for p in loaded.problems) == 3


@pytest.mark.parametrize("flag", ["--connect-timeout", "--request-timeout", "--stream-timeout"])
def test_a_bad_flag_is_one_line(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["bench", flag, "0"])
    assert exited.value.code == 2
    assert f"{flag} must be between" in capsys.readouterr().err
