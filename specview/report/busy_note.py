"""A busy-machine reason (kernel/contended.py) in the side panel's few columns.

The kernel says why a measured value is withheld as a `busy.<signal>` Phrase citing the machine's load;
how much room the reason gets is the view's choice: the side panel's note takes this short form.
"""

from __future__ import annotations

from specview.kernel.contended import signal_of
from specview.texts.catalog import Phrase


def short_note(reason: Phrase) -> Phrase:
    """The same reason in the side panel's few columns (`busy.note.<signal>`, the load's short words),
    in parts the panel puts on lines of their own."""
    fields = dict(reason.fields)
    load = fields.get("load")
    if isinstance(load, Phrase):
        fields["load"] = Phrase(load.key.replace("busy.load.", "busy.load.short.", 1), **load.fields)
    return Phrase(f"busy.note.{signal_of(reason)}", **fields)
