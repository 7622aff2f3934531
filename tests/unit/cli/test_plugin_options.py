"""A plugin backend's options (cli/plugin_options.py): stored under `<id>.<field>`, read back into its record
only, and never one of specview's own names."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import ClassVar

from specview.catalog.config import Config
from specview.cli.plugin_options import _kind, is_plugin, plugin_dest
from specview.cli.runspec_args import options_given
from specview.kernel.runspec import BackendOptions, declare


@dataclass(frozen=True, slots=True)
class WideOptions(BackendOptions):
    backend: ClassVar[str] = "wide"
    gamma: int = field(default=2, metadata=declare(option="--wide-gamma"))
    loud: bool = field(default=False, metadata=declare(option="--wide-loud"))


def test_a_plugins_fields_are_read_from_its_own_dests_only() -> None:
    args = argparse.Namespace(gamma=7, **{plugin_dest("wide", "gamma"): 3, plugin_dest("wide", "loud"): True})
    got = WideOptions(**options_given(args, Config(), WideOptions))
    assert (got.gamma, got.loud) == (3, True)  # not RunSpec's --gamma
    assert options_given(argparse.Namespace(gamma=7), Config(), WideOptions) == {}
    assert is_plugin("wide") and not any(is_plugin(own) for own in ("sim", "llama", "openai", "replay"))


def test_each_field_is_read_as_its_default_is_typed() -> None:
    assert _kind(False) == {"action": "store_true"}
    assert _kind(2)["type"] is int and _kind(0.5)["type"] is float and _kind(None)["type"] is str
