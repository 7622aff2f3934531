"""5 · Draft, then verify: the simulator in teaching mode, one round in two phases (`n`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from specview.backends.sim.backend import SimBackend
from specview.boundary.text import number
from specview.catalog.presets import DEFAULT_PRESET, load_presets
from specview.features.learn.base import LearnScreen, preset_name
from specview.features.learn.explain.rounds import round_numbers
from specview.features.learn.registry import Lesson
from specview.features.learn.sim_round import sample_round
from specview.kernel.events import Round, only_rounds
from specview.kernel.metrics import Metrics
from specview.widgets.bindings import bind
from specview.widgets.grid import Cell, Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider
from specview.widgets.token_view import TokenView

SEED = 7
STEPS = ("draft", "score", "accept", "finish")
MAX_SKIPPED = 1000  # rounds without drafts passed over before one is shown anyway
VERDICT = {"accepted": ("✓", "good"), "rejected": ("✗", "bad"), "discarded": ("…", "off")}


class RoundScreen(LearnScreen):
    """Phase 0 shows the drafts undecided (only q known); phase 1 the target's p and the verdicts."""

    BINDINGS = [
        bind("n", "next", "learn.round.next"),
        bind("r", "restart", "learn.round.restart"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.presets = list(load_presets())
        self.phase = 0
        self.current: Round | None = None
        self.metrics = Metrics()
        self._stop = threading.Event()
        self._rounds: Iterator[Round] | None = None

    def body(self) -> ComposeResult:
        start = self.presets.index(DEFAULT_PRESET) if DEFAULT_PRESET in self.presets else 0
        yield Slider(self.ts("preset"), self.presets, start, preset_name, id="preset")
        yield Static(id="steps", classes="learn-numbers")
        yield Grid(cell_width=13, id="round")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Static(id="numbers", classes="learn-numbers")
        view = TokenView(id="text")
        view.can_focus = False
        yield view
        yield Prose(self.ts("note"), classes="learn-note")

    def on_mount(self) -> None:
        self._start()
        super().on_mount()

    def on_unmount(self) -> None:
        self._stop.set()

    def _start(self) -> None:
        """A fresh seeded simulator run of the chosen preset; show its first round's drafts."""
        self._stop.set()
        self._stop = threading.Event()
        preset = load_presets()[self.query_one(Slider).value]
        backend = SimBackend(preset, seed=SEED, lang=self.lang, speed=0.0)
        self._rounds = only_rounds(backend.rounds(self._stop))
        self.metrics = Metrics()
        self.query_one(TokenView).clear()
        self.phase = 0
        self.current = self._next_drafted()

    def _next_drafted(self) -> Round:
        """The next round with drafts to show; rounds that drafted nothing (an n-gram miss) are folded
        into the totals and the stream unseen, so τ and α stay the run's own."""
        assert self._rounds is not None
        rnd = next(self._rounds)
        for _ in range(MAX_SKIPPED):
            if rnd.drafted:
                break
            self.metrics.add(rnd)
            self.query_one(TokenView).append(rnd.tokens)
            rnd = next(self._rounds)
        return rnd

    def numbers(self) -> dict[str, Any]:
        assert self.current is not None
        out = round_numbers(self.current)
        snap = self.metrics.snapshot()
        out.update(phase=self.phase, rounds=snap.rounds, tau=snap.tau, alpha=snap.acceptance_rate,
                   preset=self.query_one(Slider).value)
        return out

    def refresh_numbers(self) -> None:
        if self.current is None:
            return
        n = self.numbers()
        decided = self.phase == 1
        self.query_one("#steps", Static).update(self._steps(n, decided))
        rows, cells = [], []
        for k, d in enumerate(n["drafts"]):
            rows.append(f"d{k + 1}")
            glyph, state = VERDICT[d["verdict"]] if decided else ("?", "warn")
            p_seen = decided and d["verdict"] != "discarded"
            cells.append([
                Cell(d["text"], state if decided else "plain"),
                Cell(number(d["q"], ".3f")),
                Cell(number(d["p"], ".3f") if p_seen else "?", "plain" if p_seen else "muted"),
                Cell(number(d["keep"], ".3f") if p_seen else "?", "plain" if p_seen else "muted"),
                Cell(f"{glyph} {self.ts('verdict.' + d['verdict']) if decided else self.ts('undecided')}", state),
            ])
        for k in range(len(n["drafts"]), n["gamma"]):  # drafts the backend did not report (never verified)
            rows.append(f"d{k + 1}")
            glyph, state = VERDICT["discarded"] if decided else ("?", "warn")
            verdict = self.ts("verdict.discarded") if decided else self.ts("undecided")
            cells.append([Cell("—", "off"), Cell("—"), Cell("?", "muted"), Cell("?", "muted"),
                          Cell(f"{glyph} {verdict}", state)])
        if decided:
            final = n["final"]
            rows.append(self.ts(final["status"]))
            mark = "▸" if final["status"] == "corrected" else "⁺"
            cells.append([Cell(final["text"], "warn" if final["status"] == "corrected" else "info"), Cell("—"),
                          Cell(number(final["p"], ".3f")), Cell("—"), Cell(f"{mark} {self.ts('emitted')}", "info")])
        columns = [self.ts("col.token"), "q(x)", "p(x)", "min(1,p/q)", self.ts("col.verdict")]
        self.query_one(Grid).set(rows, columns, cells)
        pairs = [(self.ts("this_round"), self.ts("round_sum", a=n["accepted"], e=n["emitted"])
                  if decided else self.ts("waiting"))]
        pairs.append((self.ts("so_far"), self.ts("totals",
            rounds=n["rounds"], tau=number(n["tau"], ".2f"), alpha=number(n["alpha"], ".2f"))))
        self.show_pairs("numbers", pairs)

    def _steps(self, n: dict[str, Any], decided: bool) -> Text:
        """The algorithm, with the steps of the current phase marked ▶ and in bold."""
        active = {"draft"} if not decided else {"score", "accept", "finish"}
        out = Text()
        for i, step in enumerate(STEPS):
            if i:
                out.append("\n")
            on = step in active
            key = step
            if step == "finish":
                key = "finish_bonus" if n["final"]["status"] == "bonus" else "finish_fix"
            out.append(("▶ " if on else "  ") + f"{i + 1}. " + self.ts(f"step.{key}", gamma=n["gamma"]),
                       style="bold" if on else "dim")
        return out

    def action_next(self) -> None:
        if self.current is None or self._rounds is None:
            return
        if self.phase == 0:
            self.phase = 1
            self.metrics.add(self.current)
            self.query_one(TokenView).append(self.current.tokens)
        else:
            self.phase = 0
            self.current = self._next_drafted()
        self.refresh_numbers()

    def action_restart(self) -> None:
        self._start()
        self.refresh_numbers()

    def on_slider_changed(self, event: Slider.Changed) -> None:
        event.stop()
        self.action_restart()


LESSON = Lesson(5, "round", RoundScreen, lambda lang: round_numbers(sample_round(lang)[1]))
