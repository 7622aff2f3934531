"""`specview learn N --json` for every screen and `specview calc` against the closed forms."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from specview.cli import main
from specview.features.learn.registry import lessons

# independent closed forms (Leviathan et al. 2022, Eq. 1 and Theorem 3.8 with a verify ratio v)


def tau(alpha: float, gamma: int) -> float:
    return gamma + 1.0 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)


def gain(alpha: float, gamma: int, c: float, v: float) -> float:
    return tau(alpha, gamma) / (gamma * c + v)


@pytest.mark.parametrize("lesson", lessons(), ids=lambda item: str(item.number))
def test_learn_json_prints_every_screens_numbers(lesson: object, capsys: pytest.CaptureFixture[str]) -> None:
    number = lesson.number  # type: ignore[attr-defined]
    assert main(["learn", str(number), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(lesson.numbers("en")))  # type: ignore[attr-defined]
    assert printed  # every screen has numbers


def test_learn_json_in_chinese_uses_the_chinese_passage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["learn", "3", "--json", "--lang", "zh"]) == 0
    labels = json.loads(capsys.readouterr().out)["labels"]
    assert any("\u4e00" <= ch <= "\u9fff" for label in labels for ch in label)


def test_calc_equals_the_closed_forms_across_a_grid(capsys: pytest.CaptureFixture[str]) -> None:
    for alpha, gamma, c, v in itertools.product((0.0, 0.3, 0.62, 0.8, 0.95, 1.0), (1, 2, 3, 5, 8, 16, 32),
                                                (0.0, 0.01, 0.05, 0.13, 0.5, 2.0), (1.0, 1.25, 3.0)):
        args = ["calc", "--alpha", str(alpha), "--gamma", str(gamma), "--c", str(c), "--verify-ratio", str(v),
                "--json"]
        assert main(args) == 0
        n = json.loads(capsys.readouterr().out)
        assert abs(n["expected_tau"] - tau(alpha, gamma)) < 1e-9
        assert abs(n["speedup"] - gain(alpha, gamma, c, v)) < 1e-9
        best = max([(0, 1.0)] + [(g, gain(alpha, g, c, v)) for g in range(1, 33)], key=lambda x: x[1])
        assert abs(n["best_speedup"] - best[1]) < 1e-9
        if alpha > c:
            assert abs(n["break_even"]["lower_bound"] - (1 + alpha) / (1 + c)) < 1e-9


def test_calc_text_and_bad_values() -> None:
    out = subprocess.run([sys.executable, "-m", "specview", "calc", "--alpha", "0.8", "--gamma", "4", "--c", "0.05"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "3.3616" in out.stdout and "2.8013×" in out.stdout and "γ 8 → 3.0921×" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "specview", "calc", "--alpha", "1.5", "--gamma", "4", "--c", "0.05"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("specview: error: argument --alpha")
    assert "Traceback" not in bad.stderr


def test_learn_target_must_be_a_gguf(tmp_path: Path) -> None:
    (tmp_path / "x.gguf").write_text("nope")
    for target, reason in ((tmp_path / "x.gguf", "not a GGUF file"), (tmp_path / "none.gguf", "no such file")):
        out = subprocess.run([sys.executable, "-m", "specview", "learn", "8", "--target", str(target)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and reason in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("lesson", [item for item in lessons() if item.preset_numbers is not None],
                         ids=lambda item: str(item.number))
def test_learn_json_with_a_preset_prints_what_the_screen_shows_for_it(
        lesson: object, capsys: pytest.CaptureFixture[str]) -> None:
    number = lesson.number  # type: ignore[attr-defined]
    preset = "glm-5.2-mtp"  # a preset every screen that takes one shows (screen 9 has a column for it)
    assert main(["learn", str(number), "--json", "--preset", preset]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(lesson.preset_numbers("en", preset)))  # type: ignore[attr-defined]
    assert printed != json.loads(json.dumps(lesson.numbers("en")))  # type: ignore[attr-defined]


def test_learn_preset_numbers_of_screen_10_are_the_presets_own(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["learn", "10", "--json", "--preset", "glm-5.2-mtp"]) == 0
    n = json.loads(capsys.readouterr().out)
    assert (n["preset"], n["gamma"], n["c"]) == ("glm-5.2-mtp", 7, 0.05)
    assert abs(n["expected_tau"] - 5.47) < 1e-9 and abs(tau(n["alpha"], 7) - 5.47) < 1e-9  # the exact α, not a step
    assert abs(n["speedup"] - 5.47 / 1.35) < 1e-9 and n["best_gamma"] == 12


def test_learn_preset_refuses_what_it_cannot_show(capsys: pytest.CaptureFixture[str]) -> None:
    takes = ", ".join(str(item.number) for item in lessons() if item.preset_numbers is not None)
    for args, said in ((["learn", "3", "--json", "--preset", "eagle3"], f"screen 3 takes no preset; --preset works "
                        f"with screens {takes}"),
                       (["learn", "9", "--json", "--preset", "eagle3"], "--preset eagle3 is not one of them"),
                       (["learn", "10", "--json", "--preset", "nope"], "unknown preset 'nope'"),
                       (["learn", "10", "--preset", "eagle3"], "--preset goes with --json")):
        with pytest.raises(SystemExit) as stopped:
            main(args)
        assert stopped.value.code == 2, args
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err, (args, err)
