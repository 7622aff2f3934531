"""RunSpec's fields, and each backend's options record's, are declared once (kernel/runspec.py): the command
line sets each by the option it declares, the config stands in where it says so, and the recording header
holds each it records."""

from __future__ import annotations

import argparse
from dataclasses import fields, replace
from typing import Any

import pytest

from specview.backends.factory import BACKENDS, make_backend
from specview.backends.local.run_options import LlamaRunOptions
from specview.backends.remote.options import RemoteOptions
from specview.backends.replay import ReplayOptions
from specview.boundary.secrets import public_url
from specview.catalog.config import Config
from specview.cli.parser import build_parser
from specview.cli.runspec_args import spec_from_args
from specview.compat.stdlib_compat import parser_actions
from specview.features.record.recorder import recording_header
from specview.kernel.runspec import CONFIG, HEADER, OPTION, BackendOptions, RunSpec, declared
from specview.plugins.surface import units

# Fields no option sets, and what sets them: a new field declares its option or is named here.
SET_OTHERWISE = {"speed": "--speed before the command, or the config's speed (cli/app_run.py)",
                 "max_rounds": "bench --rounds", "api_key": "resolved from api_key_env",
                 "recording": "`specview replay` and replay: selectors", "baseline_basis": "bench --baseline-url",
                 "chat_template_from": "whether --chat-template or the config's chat_template named it",
                 "gamma_auto": "--gamma auto (cli/runspec_args.py)", "options": "the backend chosen (--backend)"}
# Fields a recording's header does not hold, and why: a new field declares its place or is named here.
NOT_RECORDED = {"api_key": "never written anywhere", "model": "the header holds the model the server named",
                "read_timeout": "how long to wait, not what ran", "connect_timeout": "ditto",
                "request_timeout": "ditto", "stream_timeout": "ditto",
                "baseline_tps": "the recording keeps the calibration it made", "baseline_basis": "ditto",
                "chat_template_from": "the header holds the prompt format the backend used",
                "gamma_auto": "the header's label says γ auto, and each round holds the γ it ran",
                "options": "its fields are recorded, each in its place"}
# The header writes these as the backend ran them (BackendInfo), not as asked
RAN = {"preset", "gamma", "temperature", "seed"}
SHAPED = {"tree": "3x4"}  # string options whose text has a shape
RECORDS: tuple[type[Any], ...] = (RunSpec, BackendOptions, LlamaRunOptions, RemoteOptions, ReplayOptions)
# the options records the command line fills, each with the field whose option selects its backend, and a value
SELECTED = {LlamaRunOptions: ("target", "t.gguf"), RemoteOptions: ("url", "http://127.0.0.1:1/v1")}


def _selecting(record: type[Any]) -> list[str]:
    name, value = SELECTED[record]
    return [declared(OPTION, record)[name], value]


def _actions() -> dict[str, argparse.Action]:
    return {option: action for action in parser_actions(build_parser()) for option in action.option_strings}


def _given(name: str, action: argparse.Action, record: type[Any]) -> tuple[list[str], Any]:
    """The words that set field `name` by `action`, and the value the field should then hold."""
    if action.nargs == 0:
        return [], True
    kind = str(next(f.type for f in fields(record) if f.name == name))
    if action.choices is not None:
        raw = next(choice for choice in action.choices if choice != "auto")
    else:
        raw = SHAPED.get(name) or ("3" if "int" in kind else "2.5" if "float" in kind else f"x-{name}")
    return [raw], action.type(raw) if callable(action.type) else raw


def _every_option(*records: type[Any]) -> tuple[list[str], dict[str, Any]]:
    actions = _actions()
    argv: list[str] = []
    expected: dict[str, Any] = {}
    for record in records:
        for name, option in declared(OPTION, record).items():
            action = actions[option]
            assert action.dest == name, f"{option} is stored as {action.dest}, not as {record.__name__}'s {name}"
            words, expected[name] = _given(name, action, record)
            argv += [option, *words]
    return argv, expected


def _value(spec: RunSpec, name: str) -> Any:
    return getattr(spec, name) if name in {f.name for f in fields(RunSpec)} else getattr(spec.options, name)


def test_every_field_is_declared_an_option_or_said_to_be_set_otherwise() -> None:
    assert {unit.options for unit in units(BACKENDS)} == set(RECORDS[1:])  # every built-in backend's record
    names = {f.name for record in RECORDS for f in fields(record)}
    assert names - {name for record in RECORDS for name in declared(OPTION, record)} == set(SET_OTHERWISE)
    assert names - {name for record in RECORDS for name in declared(HEADER, record)} == set(NOT_RECORDED)
    assert {name for record in RECORDS for name in declared(CONFIG, record)} <= set(Config.__dataclass_fields__)


@pytest.mark.parametrize("command", [[], ["bench"]], ids=["top-level", "subcommand"])
@pytest.mark.parametrize("record", list(SELECTED), ids=lambda record: record.__name__)
def test_every_option_sets_its_field(command: list[str], record: type[Any]) -> None:
    argv, expected = _every_option(RunSpec, record)
    spec = spec_from_args(build_parser().parse_args([*command, *argv]), config=Config())
    assert type(spec.options) is record and {name: _value(spec, name) for name in expected} == expected
    plain = spec_from_args(build_parser().parse_args([*command, *_selecting(record)]), config=Config())
    defaults = RunSpec(options=record())
    left_out = set(expected) - {SELECTED[record][0]}
    assert all(_value(plain, name) == _value(defaults, name) for name in left_out)  # left out: the default


def test_the_config_stands_in_for_the_options_that_say_so() -> None:
    actions = _actions()
    for record in SELECTED:
        values = {name: _given(name, actions[declared(OPTION, source)[name]], source)[1]
                  for source in (RunSpec, record) for name in declared(CONFIG, source)}
        assert values  # the preset, the chat template and repack, the timeouts
        spec = spec_from_args(build_parser().parse_args(_selecting(record)), config=Config(**values))
        assert {name: _value(spec, name) for name in values} == values


@pytest.mark.parametrize("record", list(SELECTED), ids=lambda record: record.__name__)
def test_every_recorded_field_reaches_the_header_as_the_command_line_set_it(record: type[Any]) -> None:
    argv, _ = _every_option(RunSpec, record)
    spec = replace(spec_from_args(build_parser().parse_args(argv), config=Config()), speed=0.5, max_rounds=7)
    info = make_backend(RunSpec()).info
    header = recording_header(info, spec)
    for source in (RunSpec, record):
        for name, place in declared(HEADER, source).items():
            section, _, key = place.rpartition(".")
            got = (header[section] if section else header)[key]
            if name in RAN:
                assert got == getattr(info, name), name
            elif name == "url":
                assert got == public_url(spec.options.url)
            else:
                default = RunSpec() if source is RunSpec else record()
                assert got == _value(spec, name) != getattr(default, name), name


def test_a_replay_records_its_recording() -> None:
    spec = RunSpec(options=ReplayOptions(recording="x-replay"))
    assert spec.kind == "replay" and spec.header_fields()["settings"]["replay"] == "x-replay"
