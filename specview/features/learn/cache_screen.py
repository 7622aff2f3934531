"""4 · Rolling back the cache: `n` steps a real (or chosen) round through the KV-cache slots."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    Probes,
    grid_text,
    shown,
    slider_values,
)
from specview.features.learn.example_round import example_round
from specview.features.learn.explain.cache import PHASES, rollback_numbers, round_rollback
from specview.features.learn.explain.rounds import label, round_drafts
from specview.features.learn.registry import Lesson
from specview.kernel.events import Round
from specview.texts.catalog import fill
from specview.widgets.bindings import bind
from specview.widgets.grid import Cell, Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

GLYPH = {
    "cached": ("■", "muted"), "pending": ("◆", "info"), "free": ("□", "off"), "proposed": ("?", "warn"),
    "written": ("▣", "info"), "accepted": ("✓", "good"), "rejected": ("✗", "bad"), "unverified": ("…", "off"),
    "removed": ("⌫", "bad"), "next": ("▸", "warn"),
}
REAL = "real"


class CacheScreen(LearnScreen):
    """The round's slots phase by phase; the slider picks the real verdict or another number accepted."""

    BINDINGS = [bind("n", "next_phase", "learn.cache.next")]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.run is not None and self.run.last_round is not None:
            self.live = True
            self.before = [label(t) for t in self.run.before_round]
            self.round: Round = self.run.last_round
        else:
            self.live = False
            before, self.round = example_round(self.lang)
            self.before = [label(t) for t in before]
        self.drafts = [d.text for d in round_drafts(self.round)]
        self.phase = 0

    def body(self) -> ComposeResult:
        choices = [REAL, *range(len(self.drafts) + 1)]
        yield Slider(self.ts("round"), choices, 0,
                     lambda v: self.ts("real") if v == REAL else self.ts("chosen", a=v), id="round")
        said = self.ts("live", origin=self.origin()) if self.live else self.ts("example")
        yield Prose(said, classes="learn-legend")
        yield Static(id="phases", classes="learn-numbers")
        yield Grid(cell_width=10, id="slots")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Static(id="numbers", classes="learn-numbers")
        yield Prose(self.ts("note"), classes="learn-note")

    def numbers(self) -> dict[str, Any]:
        choice = self.query_one(Slider).value
        if choice == REAL:
            out = round_rollback(self.before, self.round)
        else:
            final = self.ts("corrected") if choice < len(self.drafts) else self.ts("bonus")
            status = "corrected" if choice < len(self.drafts) else "bonus"
            n_cached = max(len(self.before) - 1, 0)
            context = self.before[-4:-1]
            pending = self.before[-1] if self.before else "∅"
            out = rollback_numbers(n_cached, context, pending, self.drafts, choice, final, status)
        out["phase"] = self.phase
        return out

    def refresh_numbers(self) -> None:
        n = self.numbers()
        step = n["steps"][self.phase]
        marks = "  ".join(("▶ " if i == self.phase else "") + self.ts(f"phase.{p}") for i, p in enumerate(PHASES))
        self.query_one("#phases", Static).update(Text(marks))
        slots = step["slots"]
        cells = [
            # too narrow for every word: tokens without their "␣", states as the glyphs the legend names
            [Cell(s["label"] or " ", GLYPH[s["state"]][1], (s["label"] or " ").removeprefix("␣") or " ")
             for s in slots],
            [Cell(f"{GLYPH[s['state']][0]} {self.ts('state.' + s['state'])}", GLYPH[s["state"]][1],
                  GLYPH[s["state"]][0]) for s in slots],
        ]
        self.query_one(Grid).set([self.ts("token"), self.ts("state")], [str(s["pos"]) for s in slots], cells)
        gamma, accepted = n["gamma"], n["accepted"]
        first = n["n_cached"]
        fields = {"n": first, "gamma": gamma, "a": accepted, "keep": first + accepted + 1,
                  "end": first + gamma, "removed": n["removed"], "final": n["final"], "len": step["cache_len"]}
        key = step["phase"]
        if key in ("verdict", "rollback") and accepted == gamma:
            key += "_all"  # every draft passed: nothing is rejected or discarded
        if key == "commit" and self.query_one(Slider).value != REAL:  # a chosen verdict has no token of its own:
            key, fields["final"] = "commit_kind", self.t(f"glossary.{n['final_status']}.word")  # say its kind
        text = self.ts(f"explain.{key}", **fields)
        self.show_pairs("numbers", [
            (self.ts("cache_len"), str(step["cache_len"])),
            (self.ts("emitted"), f"{n['emitted']} = {accepted} + 1" if key == "commit"
             else fill("learn.cache.emitted_later", self.lang)),  # nothing is emitted before the commit
        ], notes=[text])

    def action_next_phase(self) -> None:
        self.phase = (self.phase + 1) % len(PHASES)
        self.refresh_numbers()


def default_numbers(lang: str) -> dict[str, Any]:
    """The screen's numbers for the example round (what `specview learn 4 --json` prints)."""
    before, rnd = example_round(lang)
    return round_rollback([label(t) for t in before], rnd)



PHASE_NAMES = ("start", "draft", "write", "verdict", "rollback", "commit")


def _independent(s: Any, n: dict[str, Any]) -> Checks:
    choice = slider_values(s)["round"]
    a = s.round.accepted if choice == "real" else choice
    gamma, kept = s.round.drafted, len(s.before) - 1  # the last committed token is pending, not cached
    lengths = (kept, kept, kept + gamma + 1, kept + gamma + 1, kept + a + 1, kept + a + 1)
    rollback = n["steps"][PHASE_NAMES.index("rollback")]
    return [("accepted", n["accepted"], a), ("emitted", n["emitted"], a + 1), ("removed", n["removed"], gamma - a),
            ("phases", [step["phase"] for step in n["steps"]], list(PHASE_NAMES)),
            ("cache_len", [step["cache_len"] for step in n["steps"]], list(lengths)),
            # llama_memory_seq_rm(mem, 0, n + a + 1, −1): nothing to remove when every draft passed
            ("seq_rm", rollback["seq_rm"], [kept + a + 1, -1] if a < gamma else None), ("phase", n["phase"], s.phase)]


def _probes(s: Any, n: dict[str, Any]) -> Probes:
    return [(shown(s, "numbers"), f"{n['emitted']} = {n['accepted']} + 1" if n["phase"] == 5 else "—"),
            (grid_text(s), n["steps"][n["phase"]]["slots"][-2]["label"] or " ")]


CHECKS = LessonChecks(_independent, _probes, keys=("n", "n", "n", "n"))


LESSON = Lesson(4, "cache", CacheScreen, default_numbers, checks=CHECKS)
