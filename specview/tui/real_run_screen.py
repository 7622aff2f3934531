"""`x`: how to run the current preset for real (llama-server, vLLM, SGLang), with copy."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from specview.core.bounds import MAX_SHOWN
from specview.core.errors import PresetError
from specview.core.presets import Preset, get_preset
from specview.core.real_run import real_runs
from specview.core.text import sanitize
from specview.tui.notify import notify_safe


def real_run_text(preset: Preset) -> str:
    """The commands a preset lists, one engine per block, each followed by the specview command that
    watches it (a user preset's text sanitised)."""
    head = f"{preset.label}\nγ {preset.gamma} · T {preset.temperature:g} · {preset.hardware}"
    blocks = [sanitize(head, MAX_SHOWN)]
    for run in real_runs(preset):
        command, watch = sanitize(run.command, MAX_SHOWN), sanitize(run.watch, MAX_SHOWN)
        blocks.append(f"{run.title}:\n  {command}\n  then watch it: {watch}")
    if len(blocks) == 1:
        blocks.append("This preset lists no engine command.")
    blocks.append("c copies every command · esc closes")
    return "\n\n".join(blocks)


def show_real_run(screen: Screen[None], preset_id: str | None) -> None:
    """Open the engine commands for `preset_id` over `screen`, or say why there are none."""
    if preset_id is None:
        screen.notify("this run is not a preset: it already is real", severity="warning")
        return
    try:
        screen.app.push_screen(RealRunScreen(get_preset(preset_id)))
    except PresetError as exc:
        notify_safe(screen, str(exc), severity="error")


class RealRunScreen(ModalScreen[None]):
    """Shows the preset's engine commands; `c` copies them (OSC 52 works over SSH)."""

    BINDINGS = [
        Binding("escape,q,x", "dismiss", "close", id="real.close"),
        Binding("c", "copy", "copy", id="real.copy"),
    ]

    def __init__(self, preset: Preset) -> None:
        super().__init__()
        self.preset = preset

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = Text(f"run {sanitize(self.preset.id, 60, one_line=True)} for real")
            yield Static(Text(real_run_text(self.preset)))

    def action_copy(self) -> None:
        # What is copied is what was shown: a command carrying an escape would reach the clipboard raw.
        lines = [sanitize(line, MAX_SHOWN) for run in real_runs(self.preset) for line in (run.command, run.watch)]
        self.app.copy_to_clipboard("\n".join(lines))
        self.notify("commands copied")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
