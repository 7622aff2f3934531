"""The doctor screen: `specview doctor`'s findings for the server on screen, in the TUI.

Opened with `d` from the watch monitor and from the fleet's instance view; `esc` goes back. It asks
nothing of the server: the opener hands it `read`, which builds doctor's Observation from the
readings it already holds (from_readings.py), and the findings come from the same rules as the
command (rules.py). It sends no request, so "does it pay" is theory at an assumed draft cost c: the
screen says so under its heading, with the command that measures it (`doctor URL --off PLAIN_URL`).
It reads again every REFRESH_S while open, and redraws only when the words change.

Each finding is its severity as a word and a mark (✓ ok, ▲ warn, ✗ problem: the cue that survives
NO_COLOR), coloured from the theme, then its confidence, evidence and the flag to change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.features.doctor.finding import DoctorFinding
from specview.features.doctor.observe import Observation
from specview.features.doctor.render import detail_lines, said_line
from specview.features.doctor.rules import diagnose
from specview.texts.catalog import fill, text
from specview.widgets.bindings import bind, key_hint, localize
from specview.widgets.prose import Prose
from specview.widgets.status_line import StatusLine

REFRESH_S = 2.0
MARKS = {"ok": "✓", "warn": "▲", "problem": "✗"}

# what the opener hands over: the observation now (None before the first poll), and which heading
Read = Callable[[], Observation | None]


def heading(obs: Observation, source: str, lang: str) -> str:
    """Whose findings, from which readings (`source`: "watch" or "fleet")."""
    return fill(f"doctor.screen.{source}_head", lang, url=sanitize(obs.url, MAX_SHOWN, one_line=True),
                engine=sanitize(obs.engine, MAX_SHOWN, one_line=True), samples=obs.samples,
                window=f"{obs.window_s:.3g}")


def finding_blocks(found: Sequence[DoctorFinding], lang: str) -> list[tuple[str, str, str]]:
    """(severity, the said line with its mark, the detail lines) per finding."""
    return [(f.severity, f"{MARKS.get(f.severity, '?')} {said_line(f, lang)}", "\n".join(detail_lines(f, lang)))
            for f in found]


class DoctorScreen(Screen[None]):
    """The findings for one server, from readings the opener already has."""

    DEFAULT_CSS = """
    DoctorScreen #doctor-body { height: 1fr; padding: 0 1; }
    DoctorScreen .doctor-head { color: $text-muted; margin-bottom: 1; }
    DoctorScreen .doctor-said { text-style: bold; }
    DoctorScreen .sev-ok { color: $success; }
    DoctorScreen .sev-warn { color: $warning; }
    DoctorScreen .sev-problem { color: $error; text-style: bold; }
    DoctorScreen .doctor-detail { padding-left: 2; margin-bottom: 1; }
    """
    BINDINGS = [bind("escape", "back", "doctor.back")]

    def __init__(self, read: Read, source: str, lang: str = "en") -> None:
        super().__init__()
        localize(self, lang)
        self.read, self.source, self.lang = read, source, lang
        self.shown: tuple[str, ...] = ()  # the words on screen (redrawn only when they change)

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        yield VerticalScroll(id="doctor-body")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(StatusLine).set(what=text("doctor.screen.title", self.lang), hint=key_hint(self.app, "app.help"))
        self.redraw()
        self.set_interval(REFRESH_S, self.redraw, name="doctor-refresh")

    def redraw(self) -> None:
        """Read the opener's readings again; rebuild the findings where their words changed."""
        t = self.lang
        obs = self.read()
        if obs is None:
            head, blocks = text("doctor.screen.waiting", t), []
        else:
            found = diagnose(obs)
            head, blocks = heading(obs, self.source, t), finding_blocks(found, t)
            if any(f.id.startswith("pays") for f in found):
                head += "\n" + fill("doctor.screen.theory", t, url=sanitize(obs.url, MAX_SHOWN, one_line=True))
        words = (head, *(f"{s}\n{said}\n{detail}" for s, said, detail in blocks))
        if words == self.shown:
            return
        self.shown = words
        body = self.query_one("#doctor-body", VerticalScroll)
        with self.app.batch_update():
            body.remove_children()
            # Prose: a Chinese sentence wraps between its characters, not only at spaces
            widgets: list[Widget] = [Prose(head, classes="doctor-head")]
            for severity, said, detail in blocks:
                widgets.append(Prose(said, classes=f"doctor-said sev-{severity}"))
                widgets.append(Prose(detail, classes="doctor-detail"))
            body.mount_all(widgets)

    def action_back(self) -> None:
        self.dismiss()
