"""The only modules that touch other libraries' private names (a leading underscore), each in one place.

`textual_compat` holds Textual's, `stdlib_compat` the standard library's (argparse, re, atexit),
`serve_compat` textual-serve's and `llama_compat` llama-cpp-python's. Each lists the names it relies
on in `PRIVATE`: tests/unit/compat/test_textual_compat.py and test_library_compat.py fail, naming the name,
when an installed release moves one; tests/unit/test_private_names.py fails when a module outside
this package touches a library's private name, or a compat module one it does not list.
This package imports nothing of specview, so every layer may use it (import-linter checks it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Private:
    """One private name a compat module relies on: `owner` ("module:Class" or "module") has `name`.
    `instance`: an attribute set on each instance (in `__init__`), not found on the class."""

    owner: str
    name: str
    why: str
    instance: bool = False

    @property
    def dotted(self) -> str:
        """The name as a person searches a changelog for it: `textual.screen.Screen._compositor_refresh`."""
        return f"{self.owner.replace(':', '.')}.{self.name}"
