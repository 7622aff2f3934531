"""RunSpec's fields are declared once (kernel/runspec.py): the command line sets each by the option it
declares, the config stands in where it says so, and the recording header holds each it records."""

from __future__ import annotations

import argparse
from dataclasses import fields, replace
from typing import Any

import pytest

from specview.backends.factory import make_backend
from specview.boundary.secrets import public_url
from specview.catalog.config import Config
from specview.cli.parser import build_parser
from specview.cli.runspec_args import spec_from_args
from specview.compat.stdlib_compat import parser_actions
from specview.features.record.recorder import recording_header
from specview.kernel.runspec import CONFIG, HEADER, OPTION, RunSpec, declared

# Fields no option sets, and what sets them: a new field declares its option or is named here.
SET_OTHERWISE = {"speed": "--speed before the command, or the config's speed (cli/app_run.py)",
                 "max_rounds": "bench --rounds", "api_key": "resolved from api_key_env",
                 "replay": "`specview replay` and replay: selectors", "baseline_basis": "bench --baseline-url",
                 "chat_template_from": "whether --chat-template or the config's chat_template named it",
                 "gamma_auto": "--gamma auto (cli/runspec_args.py)"}
# Fields a recording's header does not hold, and why: a new field declares its place or is named here.
NOT_RECORDED = {"api_key": "never written anywhere", "model": "the header holds the model the server named",
                "read_timeout": "how long to wait, not what ran", "connect_timeout": "ditto",
                "request_timeout": "ditto", "stream_timeout": "ditto",
                "baseline_tps": "the recording keeps the calibration it made", "baseline_basis": "ditto",
                "chat_template_from": "the header holds the prompt format the backend used",
                "gamma_auto": "the header's label says γ auto, and each round holds the γ it ran"}
# The header writes these as the backend ran them (BackendInfo), not as asked
RAN = {"preset", "gamma", "temperature", "seed"}
SHAPED = {"tree": "3x4"}  # string options whose text has a shape


def _actions() -> dict[str, argparse.Action]:
    return {option: action for action in parser_actions(build_parser()) for option in action.option_strings}


def _given(name: str, action: argparse.Action) -> tuple[list[str], Any]:
    """The words that set field `name` by `action`, and the value the field should then hold."""
    if action.nargs == 0:
        return [], True
    kind = str(next(f.type for f in fields(RunSpec) if f.name == name))
    if action.choices is not None:
        raw = next(choice for choice in action.choices if choice != "auto")
    else:
        raw = SHAPED.get(name) or ("3" if "int" in kind else "2.5" if "float" in kind else f"x-{name}")
    return [raw], action.type(raw) if callable(action.type) else raw


def _every_option() -> tuple[list[str], dict[str, Any]]:
    actions = _actions()
    argv: list[str] = []
    expected: dict[str, Any] = {}
    for name, option in declared(OPTION).items():
        action = actions[option]
        assert action.dest == name, f"{option} is stored as {action.dest}, not as RunSpec's {name}"
        words, expected[name] = _given(name, action)
        argv += [option, *words]
    return argv, expected


def test_every_field_is_declared_an_option_or_said_to_be_set_otherwise() -> None:
    names = {f.name for f in fields(RunSpec)}
    assert names - set(declared(OPTION)) == set(SET_OTHERWISE)
    assert names - set(declared(HEADER)) == set(NOT_RECORDED)
    assert set(declared(CONFIG)) <= {f for f in Config.__dataclass_fields__}


@pytest.mark.parametrize("command", [[], ["bench"]], ids=["top-level", "subcommand"])
def test_every_option_sets_its_field(command: list[str]) -> None:
    argv, expected = _every_option()
    spec = spec_from_args(build_parser().parse_args([*command, *argv]), config=Config())
    assert {name: getattr(spec, name) for name in expected} == expected
    plain = spec_from_args(build_parser().parse_args(command), config=Config())
    assert all(getattr(plain, name) == getattr(RunSpec(), name) for name in expected)  # left out: the default


def test_the_config_stands_in_for_the_options_that_say_so() -> None:
    actions = _actions()
    values = {name: _given(name, actions[declared(OPTION)[name]])[1] for name in declared(CONFIG)}
    assert values  # the preset and the timeouts
    spec = spec_from_args(build_parser().parse_args([]), config=Config(**values))
    assert {name: getattr(spec, name) for name in values} == values


def test_every_recorded_field_reaches_the_header_as_the_command_line_set_it() -> None:
    argv, _ = _every_option()
    spec = replace(spec_from_args(build_parser().parse_args(argv), config=Config()),
                   speed=0.5, max_rounds=7, replay="x-replay")
    info = make_backend(RunSpec()).info
    header = recording_header(info, spec)
    for name, place in declared(HEADER).items():
        section, _, key = place.rpartition(".")
        got = (header[section] if section else header)[key]
        if name in RAN:
            assert got == getattr(info, name), name
        elif name == "url":
            assert got == public_url(spec.url)
        else:
            assert got == getattr(spec, name) != getattr(RunSpec(), name), name
