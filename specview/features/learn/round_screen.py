"""5 · Draft, then verify: one round in four steps, one `n` per step, each showing only what has happened.

The round is the live run's last one where it has its own p, q and draws (a local llama.cpp run,
`--demo`), else a canned round whose drafts cover a keep at p ≥ q, a keep by the draw u and a
rejection by it; or a seeded simulator run of a preset, round after round.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.widgets import Static

from specview.backends.sim.backend import SimBackend
from specview.boundary.text import number
from specview.catalog.presets import load_presets
from specview.features.learn.base import LearnScreen, preset_name
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    grid_text,
    near,
    shown,
    slider_values,
)
from specview.features.learn.explain.canned import canned_round
from specview.features.learn.explain.rounds import round_numbers
from specview.features.learn.registry import Lesson
from specview.kernel.events import Round, TokenStatus, only_rounds
from specview.kernel.metrics import Metrics
from specview.methods.registry import methods
from specview.texts.catalog import catalog, fill
from specview.widgets.bindings import bind
from specview.widgets.grid import Cell, Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider
from specview.widgets.token_view import TokenView

SEED = 7
STEPS = ("draft", "score", "accept", "finish")  # one phase each: `n` moves to the next
LIVE, CANNED = "@live", "@canned"  # the sources that are one round, before the presets
SHORT_ROWS = 28  # a terminal shorter than this shows only the current step
MAX_SKIPPED = 1000  # rounds without drafts passed over before one is shown anyway
VERDICT = {"accepted": ("✓", "good"), "rejected": ("✗", "bad"), "discarded": ("…", "off")}


def _looks_up(source: str) -> bool:
    """Whether a preset's drafter copies from the context (its method's Learn school is "lookup")."""
    preset = load_presets().get(source)
    return preset is not None and preset.method in methods() and methods()[preset.method].school == "lookup"


def has_own_pq(rnd: Round | None) -> bool:
    """A round whose verified drafts carry the run's own p and q (a local run; a remote one has none)."""
    verified = [] if rnd is None else [t for t in rnd.tokens if t.status in (TokenStatus.ACCEPTED,
                                                                             TokenStatus.REJECTED)]
    return bool(verified) and all(t.p is not None and t.q is not None for t in verified)


class RoundScreen(LearnScreen):
    """Phase k lights step k + 1: drafts and q; then p and min(1, p/q); then u and the verdicts; then
    the target's own token, the stream and the totals."""

    CSS = """
    RoundScreen .round-step { color: $text-muted; }
    RoundScreen .round-step.-on { color: $text; text-style: bold; }
    RoundScreen.-short .round-step { display: none; }
    RoundScreen.-short .round-step.-on { display: block; }
    """
    BINDINGS = [
        bind("n", "next", "learn.round.next"),
        bind("r", "restart", "learn.round.restart"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        live = self.run.last_round if self.run is not None else None
        self.live_round = live if has_own_pq(live) else None
        self.sources = ([LIVE] if self.live_round is not None else []) + [CANNED]
        self.phase = 0
        self.current: Round | None = None
        self.metrics = Metrics()
        self._stop = threading.Event()
        self._rounds: Iterator[Round] | None = None

    def body(self) -> ComposeResult:
        self.sources += self.listed_presets()
        yield Slider(self.ts("source"), self.sources, 0, self._source_name, id="preset")
        yield Prose(id="source", classes="learn-legend")
        for i in range(len(STEPS)):
            yield Prose(id=f"step-{i}", classes="round-step")
        yield Grid(cell_width=11, id="round")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Static(id="numbers", classes="learn-numbers")
        view = TokenView(id="text")
        view.can_focus = False
        yield view
        yield Prose(self.ts("note"), classes="learn-note")


    def _source_name(self, source: str) -> str:
        if source in (LIVE, CANNED):
            return self.ts("source.live" if source == LIVE else "source.canned")
        return preset_name(source)

    def on_mount(self) -> None:
        self._start()
        super().on_mount()
        self.set_class(self.app.size.height < SHORT_ROWS, "-short")

    def on_resize(self, event: events.Resize) -> None:
        # a short terminal shows the current step alone, so the round's table and result stay above the fold
        self.set_class(event.size.height < SHORT_ROWS, "-short")

    def on_unmount(self) -> None:
        self._stop.set()

    @property
    def source(self) -> str:
        return str(self.query_one(Slider).value)

    def _start(self) -> None:
        """The chosen source from its first round: the live or canned round, or a fresh seeded simulator run."""
        self._stop.set()
        self._stop = threading.Event()
        source = self.source
        if source == LIVE:
            assert self.live_round is not None
            self._rounds = iter([self.live_round])
        elif source == CANNED:
            self._rounds = iter([canned_round(self.ts("canned_words").split("|"))])
        else:
            backend = SimBackend(load_presets()[source], seed=SEED, lang=self.lang, speed=0.0)
            self._rounds = only_rounds(backend.rounds(self._stop))
        self.metrics = Metrics()
        self.query_one(TokenView).clear()
        self.phase = 0
        self.current = self._next_drafted()

    def _next_drafted(self) -> Round | None:
        """The next round with drafts to show (None when a one-round source is done); rounds that
        drafted nothing (an n-gram miss) are folded into the totals and the stream unseen, so τ and α
        stay the run's own."""
        assert self._rounds is not None
        rnd = next(self._rounds, None)
        for _ in range(MAX_SKIPPED):
            if rnd is None or rnd.drafted:
                break
            self.metrics.add(rnd)
            self.query_one(TokenView).append(rnd.tokens)
            rnd = next(self._rounds, None)
        return rnd

    def numbers(self) -> dict[str, Any]:
        assert self.current is not None
        out = round_numbers(self.current)
        snap = self.metrics.snapshot()
        out.update(phase=self.phase, rounds=snap.rounds, tau=snap.tau, alpha=snap.acceptance_rate,
                   preset=self.source)
        return out

    def _greedy(self) -> bool:
        """A preset run at temperature 0: drafts are argmaxes, kept when the target's argmax agrees."""
        presets = load_presets()
        return self.source in presets and presets[self.source].temperature == 0

    def refresh_numbers(self) -> None:
        if self.current is None:
            return
        n = self.numbers()
        self._show_source(n)
        self._show_steps(n)
        self.query_one(Grid).set(*self._grid(n))
        done = self.phase == len(STEPS) - 1
        pairs = [(self.ts("this_round"), self.ts("round_sum", a=n["accepted"], e=n["emitted"])
                  if done else self.ts(f"waiting.{STEPS[self.phase]}"))]
        pairs.append((self.ts("so_far"), self.ts("totals",
            rounds=n["rounds"], tau=number(n["tau"], ".2f"), alpha=number(n["alpha"], ".2f"))))
        self.show_pairs("numbers", pairs)

    def _show_source(self, n: dict[str, Any]) -> None:
        source = self.source
        if source == LIVE:
            assert self.run is not None
            said = self.ts("from.live", origin=self.origin(), backend=preset_name(str(self.run.backend or "?")))
        elif source == CANNED:
            said = self.ts("from.canned")
        else:
            kind = "lookup" if _looks_up(source) else ("greedy" if self._greedy() else "sampled")
            said = self.ts(f"from.sim.{kind}", preset=preset_name(source))
        self.query_one("#source", Prose).update(said)

    def _show_steps(self, n: dict[str, Any]) -> None:
        """Each step's text; step 4 names its outcome only once it has happened."""
        greedy = self._greedy()
        lookup = _looks_up(self.source)
        for i, step in enumerate(STEPS):
            key = f"step.{step}"
            if step == "draft" and (lookup or greedy):
                key = "step.draft_lookup" if lookup else "step.draft_greedy"
            elif step == "accept" and greedy:
                key = "step.accept_greedy"
            elif step == "finish" and self.phase == i:
                key = "step.finish_bonus" if n["final"]["status"] == "bonus" else "step.finish_fix"
            if n["gamma"] == 1 and f"learn.round.{key}_one" in catalog(self.lang):
                key += "_one"  # one draft: said in the singular ("proposes 1 token", not "one after another")
            widget = self.query_one(f"#step-{i}", Prose)
            said = self.ts(key, gamma=n["gamma"])
            widget.update(("▶ " if self.phase == i else "  ") + f"{i + 1}. " + said)
            widget.set_class(self.phase == i, "-on")

    def _grid(self, n: dict[str, Any]) -> tuple[list[str], list[str], list[list[Cell]]]:
        """Drafts and q from step 1; p and min(1, p/q) from step 2; u and the verdicts from step 3;
        the target's own token from step 4."""
        scored, judged, done = self.phase >= 1, self.phase >= 2, self.phase >= 3
        greedy = self._greedy()  # judged by argmax: min(1, p/q) and u play no part
        rows, cells = [], []
        for k, d in enumerate(n["drafts"]):
            rows.append(f"d{k + 1}")
            verified = d["verdict"] != "discarded"
            glyph, state = VERDICT[d["verdict"]] if judged else ("?", "warn")
            p_seen = scored and verified and d["p"] is not None
            cells.append([
                Cell(d["text"], state if judged else "plain"),
                Cell(number(d["q"], ".3f")),
                Cell(number(d["p"], ".3f") if p_seen else "?", "plain" if p_seen else "muted"),
                Cell("—", "muted") if greedy else Cell(number(d["keep"], ".3f") if p_seen else "?",
                                                       "plain" if p_seen else "muted"),
                Cell("—", "muted") if greedy else self._draw_cell(d, judged and verified),
                Cell(f"{glyph} {self.ts('verdict.' + d['verdict']) if judged else self.ts('undecided')}", state, glyph),
            ])
        for k in range(len(n["drafts"]), n["gamma"]):  # drafts the backend did not report (never verified)
            rows.append(f"d{k + 1}")
            glyph, state = VERDICT["discarded"] if judged else ("?", "warn")
            verdict = self.ts("verdict.discarded") if judged else self.ts("undecided")
            cells.append([Cell("—", "off"), Cell("—"), Cell("?", "muted"), Cell("?", "muted"), Cell("?", "muted"),
                          Cell(f"{glyph} {verdict}", state, glyph)])
        if done:
            final = n["final"]
            rows.append(self.ts(final["status"]))
            mark = "▸" if final["status"] == "corrected" else "⁺"
            cells.append([Cell(final["text"], "warn" if final["status"] == "corrected" else "info"), Cell("—"),
                          Cell(number(final["p"], ".3f")), Cell("—"), Cell("—"),
                          Cell(f"{mark} {self.ts('emitted')}", "info")])
        columns = [self.ts("col.token"), "q(x)", "p(x)", "min(1,p/q)", "u", self.ts("col.verdict")]
        return rows, columns, cells

    def _draw_cell(self, d: dict[str, Any], shown: bool) -> Cell:
        """The uniform draw a draft was judged with; none is drawn where min(1, p/q) = 1."""
        if not shown:
            return Cell("?", "muted")
        if d["u"] is not None:
            return Cell(number(d["u"], ".3f"))
        return Cell(self.ts("no_draw") if d["keep"] == 1.0 else "—", "muted")

    def action_next(self) -> None:
        if self.current is None or self._rounds is None:
            return
        if self.phase < len(STEPS) - 1:
            self.phase += 1
            if self.phase == len(STEPS) - 1:  # the round is over: its tokens join the stream and the totals
                self.metrics.add(self.current)
                self.query_one(TokenView).append(self.current.tokens)
        else:
            following = self._next_drafted()
            if following is None:  # a one-round source: show it again from its first step
                self._start()
            else:
                self.phase, self.current = 0, following
        self.refresh_numbers()

    def action_restart(self) -> None:
        self._start()
        self.refresh_numbers()

    def on_slider_changed(self, event: Slider.Changed) -> None:
        event.stop()
        self.action_restart()


def default_numbers(lang: str) -> dict[str, Any]:
    """The canned round, as the screen opens without a live run."""
    return round_numbers(canned_round(fill("learn.round.canned_words", lang).split("|")))



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    rnd, shown_tokens = s.current, s.query_one(TokenView).tokens
    accepted = sum(t.status is TokenStatus.ACCEPTED for t in rnd.tokens)
    verdicts = [d["verdict"] for d in n["drafts"]]
    rounds = sum(t.status in (TokenStatus.CORRECTED, TokenStatus.BONUS, TokenStatus.PLAIN) for t in shown_tokens)
    keep = [None if d["p"] is None or not d["q"] else near(min(1, d["p"] / d["q"])) for d in n["drafts"]]
    return [("accepted", n["accepted"], accepted), ("emitted", n["emitted"], accepted + 1),
            ("verdicts", verdicts, sorted(verdicts, key=["accepted", "rejected", "discarded"].index)),
            ("keep", [d["keep"] for d in n["drafts"]], keep), ("gamma", n["gamma"], rnd.drafted),
            # the totals of the rounds shown so far: each ends with one token of the target's own
            ("rounds", n["rounds"], rounds), ("preset", n["preset"], slider_values(s)["preset"])] + (
        [("tau", n["tau"], near(sum(t.emitted for t in shown_tokens) / rounds))] if rounds else [])


CHECKS = LessonChecks(_independent, lambda s, n: [(grid_text(s), n["drafts"][0]["text"]),
                                                  (shown(s, "numbers"), f"{n['rounds']}")], keys=("n", "n", "n"))


LESSON = Lesson(5, "round", RoundScreen, default_numbers, checks=CHECKS)
