"""Checks of the private names specview/compat relies on, shared by the tests of each compat module."""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import importlib
import importlib.metadata
from collections.abc import Callable
from typing import Any

from specview.compat import Private


def _linux_driver() -> Any:
    from textual.app import App
    from textual.drivers.linux_driver import LinuxDriver

    async def made() -> Any:  # a driver takes the running loop when it is made
        return LinuxDriver(App())

    return asyncio.run(made())


def _widget() -> Any:
    from textual.widget import Widget

    return Widget()


def _app() -> Any:
    from textual.app import App

    return App()


# how to make an object of each owner whose private name is set per instance (in its __init__)
INSTANCES: dict[str, Callable[[], Any]] = {
    "textual.app:App": _app,
    "textual.dom:DOMNode": _widget,
    "textual.message_pump:MessagePump": _widget,
    "textual.drivers.linux_driver:LinuxDriver": _linux_driver,
    "argparse:ArgumentParser": argparse.ArgumentParser,
    "argparse:_ArgumentGroup": lambda: argparse.ArgumentParser().add_argument_group("group"),
    "argparse:_SubParsersAction": lambda: argparse.ArgumentParser().add_subparsers(),
    "argparse:HelpFormatter": lambda: argparse.HelpFormatter("prog"),
    "ctypes:CDLL": lambda: ctypes.CDLL(None),
}


def release(module: str) -> str:
    """`textual 8.2.8`: the distribution a module comes from, for a failure's message."""
    top = module.partition(".")[0]
    names = importlib.metadata.packages_distributions().get(top, [])
    for name in names:
        return f"{name} {importlib.metadata.version(name)}"
    return f"{top} (standard library)"


def resolve(owner: str) -> Any:
    """The object `owner` names: "module" or "module:Class.Nested"."""
    module, _, qualname = owner.partition(":")
    found: Any = importlib.import_module(module)
    for part in filter(None, qualname.split(".")):
        found = getattr(found, part)
    return found


def missing(private: Private) -> str | None:
    """None if the installed library still has the name; else why the test fails, naming it."""
    module = private.owner.partition(":")[0]
    try:
        owner = resolve(private.owner)
    except (ImportError, AttributeError) as exc:
        return f"{private.dotted}: its owner {private.owner} is gone from {release(module)} ({exc})"
    if private.instance:
        make = INSTANCES.get(private.owner)
        if make is None:
            return f"{private.dotted}: tests/support/private_names.py has no way to make a {private.owner}"
        owner = make()
    if not hasattr(owner, private.name):
        return (f"{private.dotted} is gone from {release(module)}: specview relied on it for {private.why} "
                "(specview/compat)")
    return None
