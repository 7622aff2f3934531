"""`specview doctor`'s options that go together and those that do not: each refusal is one line and
exit 2, before anything is asked of a server or a model loaded."""

from __future__ import annotations

import pytest

from specview.cli import main


@pytest.mark.parametrize(("args", "said"), [
    (["http://127.0.0.1:9", "http://127.0.0.1:10", "--off", "http://127.0.0.1:11"], "give exactly one URL"),
    (["--prometheus", "http://127.0.0.1:9", "--off", "http://127.0.0.1:11"], "give exactly one URL"),
    (["http://127.0.0.1:9", "--off", "http://127.0.0.1:11", "--baseline-tps", "10"], "leave out --baseline-tps"),
    (["--target", "t.gguf", "http://127.0.0.1:9"], "leave out the server URLs"),
    (["--target", "t.gguf", "--off", "http://127.0.0.1:9"], "leave out the server URLs"),
    (["--target", "t.gguf", "--max-tokens", "5000"], "--max-tokens"),
])
def test_options_that_do_not_go_together_are_one_line_and_exit_2(
        args: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["doctor", *args])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1, err
