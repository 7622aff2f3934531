"""`x`: how to run the current preset for real (llama-server, vLLM, SGLang), with copy."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen

from specview.backends.local.cpu_features import amx_cpu
from specview.backends.remote.registry import engines
from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.catalog.preset_words import preset_words
from specview.catalog.presets import Preset, get_preset
from specview.features.live.real_run import RealRun, real_runs
from specview.texts.catalog import fill, text
from specview.tui.notify import user_action
from specview.widgets.bindings import bind, key_hint, localize


def real_run_text(preset: Preset, lang: str = "en", footer: str = "") -> str:
    """The commands a preset lists, one engine per block, each followed by the specview command that
    watches it, then what the keys do (a user preset's text sanitised)."""
    label, hardware = preset_words(preset, lang)
    head = f"{label}\nγ {preset.gamma} · T {preset.temperature:g} · {hardware}"
    blocks = [sanitize(head, MAX_SHOWN)]
    for run in real_runs(preset, engines(), no_repack=amx_cpu()):
        title, command = sanitize(run.title, MAX_SHOWN, one_line=True), sanitize(run.command, MAX_SHOWN)
        watch = "" if run.watch is None else f"\n  {fill('real.watch', lang, command=sanitize(run.watch, MAX_SHOWN))}"
        if run.removed_in is not None:  # the method is gone from newer releases: say which still run it
            version = sanitize(run.removed_in, 40, one_line=True)
            watch = f"\n  {fill('real.removed', lang, engine=title, version=version)}{watch}"
        blocks.append(f"{title}:\n  {command}{watch}")
    if len(blocks) == 1:
        blocks.append(text("real.none", lang))
    if footer:
        blocks.append(sanitize(footer, MAX_SHOWN))  # keys may come from the config's keymap
    return "\n\n".join(blocks)


def show_real_run(screen: Screen[Any], preset_id: str | None, lang: str = "en") -> None:
    """Open the engine commands for `preset_id` over `screen`, or say why there are none."""
    if preset_id is None:
        screen.notify(text("real.not_a_preset", lang), severity="warning", markup=False)
        return
    with user_action(screen):
        screen.app.push_screen(RealRunScreen(get_preset(preset_id), lang))


class RealRunScreen(ModalScreen[None]):
    """Shows the preset's engine commands; `c` copies them (OSC 52 works over SSH)."""

    BINDINGS = [
        bind("escape,q,x", "dismiss", "real.close"),
        bind("c", "copy", "real.copy"),
    ]

    def __init__(self, preset: Preset, lang: str = "en") -> None:
        super().__init__()
        localize(self, lang)
        self.preset = preset
        self.lang = lang

    def compose(self) -> ComposeResult:
        from textual.widgets import Static

        keys = " · ".join(filter(None, (key_hint(self, "real.copy"), key_hint(self, "real.close"))))
        with VerticalScroll(id="help-box", classes="modal-box") as box:
            box.border_title = Text(fill("real.title", self.lang, preset=sanitize(self.preset.id, 60, one_line=True)))
            yield Static(Text(real_run_text(self.preset, self.lang, keys)))

    def action_copy(self) -> None:
        # What is copied is what was shown: a command carrying an escape would reach the clipboard raw.
        runs = real_runs(self.preset, engines(), no_repack=amx_cpu())
        lines = [sanitize(line, MAX_SHOWN) for run in runs for line in _lines(run)]
        self.app.copy_to_clipboard("\n".join(lines))
        self.notify(text("real.copied", self.lang), markup=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


def _lines(run: RealRun) -> tuple[str, ...]:
    """What `c` copies of one engine: its command, then the command that watches it when known."""
    return (run.command,) if run.watch is None else (run.command, run.watch)
