"""The command-line options a plugin backend's options record declares (kernel/runspec.py's OPTION).

specview's own backends' options are added by name in cli/parser.py and stored under their field's
name; a plugin backend's are added here, each stored under `<backend id>.<field>` (`plugin_dest`), where
cli/runspec_args.py reads them back when `--backend` names that backend. A plugin's option must start
with `--<its id>-`, so it can never take one of specview's; one that does not is left out, with one line
(plugins/problems.py). The value is read as the field's default is typed (a flag for a bool, else an int,
a float or the text).
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

from specview.cli.argtypes import Parser
from specview.cli.help_format import Help
from specview.kernel.backend import BackendKind
from specview.kernel.runspec import OPTION


def plugin_dest(backend: str, name: str) -> str:
    """Where the parser stores a plugin backend's field `name`."""
    return f"{backend}.{name}"


def is_plugin(backend: str) -> bool:
    """Whether `backend` is a plugin's (not one of specview's own, whose options cli/parser.py adds)."""
    return backend not in BackendKind.__members__.values()


def add_plugin_options(parser: Parser) -> None:
    """Add every plugin backend's options, in a group of each backend's own."""
    from specview.backends.factory import BACKENDS
    from specview.boundary.text import sanitize, shown
    from specview.plugins.problems import report
    from specview.plugins.surface import units
    from specview.texts.catalog import Phrase

    for unit in units(BACKENDS):
        if not is_plugin(unit.id):
            continue
        group = None
        for field in fields(unit.options):
            option = field.metadata.get(OPTION)
            if option is None:
                continue
            if not str(option).startswith(f"--{unit.id}-"):
                report(Phrase("plugins.backend_option", id=shown(unit.id), option=shown(option)))
                continue
            name = sanitize(unit.id, 40, one_line=True)
            group = group or parser.add_argument_group(Help("cli_help.group.plugin", backend=name))
            group.add_argument(str(option), dest=plugin_dest(unit.id, field.name),
                               help=Help("cli_help.sel.plugin_option", backend=name),
                               **_kind(field.default))


def _kind(default: Any) -> dict[str, Any]:
    """How argparse reads a field with this default."""
    if isinstance(default, bool):
        return {"action": "store_true"}
    kind = type(default) if default is not MISSING and isinstance(default, int | float) else str
    return {"type": kind, "metavar": "X" if kind is not str else "TEXT"}
