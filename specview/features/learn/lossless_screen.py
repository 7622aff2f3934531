"""6 · Lossless rejection sampling: p and q, their overlap α, the proof with numbers, and a sampling check."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from specview.boundary.text import number
from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    Probes,
    near,
    shown,
    slider_values,
)
from specview.features.learn.explain.coupling import (
    CLOSENESS_STEP,
    DEFAULT_CLOSENESS,
    DEFAULT_DRAWS,
    FAR_Q,
    TARGET_P,
    coupling_numbers,
)
from specview.features.learn.explain.rounds import keep_probability, label
from specview.features.learn.registry import Lesson
from specview.kernel.events import TokenStatus
from specview.widgets.bindings import bind
from specview.widgets.dist_bars import COMPARE, SPLIT, DistributionBars
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

MODES = ("trust", "coupling", "proof")
CLOSENESS = [round(i * CLOSENESS_STEP, 2) for i in range(round(1 / CLOSENESS_STEP) + 1)]


class LosslessScreen(LearnScreen):
    """q slides towards p (←/→); `t` explains, `s` draws 100,000 rounds, `w` swaps in a wrong sampler."""

    BINDINGS = [
        bind("t", "explain", "learn.lossless.explain"),
        bind("s", "sample", "learn.lossless.sample"),
        bind("w", "wrong", "learn.lossless.wrong"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mode = 0
        self.sampled = False
        self.wrong = False
        self.sample_s: float | None = None
        rows = self.run.token_rows if self.run is not None else None
        self.rows = rows
        if rows is not None:
            self.labels = list(rows.labels)  # made safe and short where they were read (token_rows)
        else:
            self.labels = self.ts("vocab").split()[: len(TARGET_P)]

    def body(self) -> ComposeResult:
        if self.rows is None:
            said = self._live_token()
            if said:
                yield Prose(said, classes="learn-legend")
            yield Prose(self.ts("example"), classes="learn-legend")
            yield Slider(self.ts("closeness"), CLOSENESS, CLOSENESS.index(DEFAULT_CLOSENESS), lambda v: f"{v:.2f}",
                         id="closeness")
        else:
            yield Prose(self._live_header(), classes="learn-legend")
        start = self.rows.chosen if self.rows is not None else 0
        yield Slider(self.ts("token"), list(range(len(self.labels))), start, lambda i: self.labels[i], id="token")
        yield DistributionBars(id="dist")
        yield Static(id="numbers", classes="learn-numbers")  # above the legend: on screen at 80×24
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Static(id="explain-title", classes="learn-numbers")
        yield Prose(id="explain", classes="learn-numbers")
        yield DistributionBars(id="histogram")
        yield Static(id="sampling", classes="learn-numbers")
        yield Prose(self.ts("note"), classes="learn-note")
        yield Prose(self._greedy(), id="greedy", classes="learn-note")

    def _greedy(self) -> str:
        """Why greedy runs may still differ: with the user's last `specview diff` when one is kept."""
        from specview.features.diff.last import load

        last = load()
        if last is None or (last.kind == "numerics" and last.batch_width is None):
            return self.ts("greedy")
        shift = number(last.logit_shift, ".3f")
        n = last.tokens if last.kind == "exact" else last.tokens + 1
        return self.ts(f"greedy_{last.kind}", model=last.model, n=n, width=last.batch_width, shift=shift)


    def _live_token(self) -> str:
        """What the run gave this screen without its full rows: the token opened from the live view, else
        the last round's judged draft (its refusal, or its last kept draft) with p, q, min(1, p/q) and u."""
        if self.run is None:
            return ""
        token = self.run.token
        if token is not None:
            return self.ts("live_token", origin=self.origin(), token=label(token.text), p=number(token.p, ".3f"),
                           q=number(token.q, ".3f"))
        rnd = self.run.last_round
        judged = [] if rnd is None else [
            t for t in rnd.tokens
            if t.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED) and t.p is not None and t.q is not None
        ]
        if not judged:
            return ""
        last = judged[-1]
        keep = keep_probability(last.p, last.q)
        u = number(last.u, ".3f") if last.u is not None else self.ts("no_draw")
        return self.ts("last_draft", origin=self.origin(), token=label(last.text), p=number(last.p, ".3f"),
                       q=number(last.q, ".3f"), keep=number(keep, ".3f"), u=u,
                       verdict=self.ts(f"verdict.{last.status.value}"))

    def _live_header(self) -> str:
        assert self.run is not None and self.rows is not None
        token = self.run.token
        shown = label(token.text) if token is not None else "?"
        position = "?" if token is None or token.position is None else str(token.position + 1)
        return self.ts("live", origin=self.origin(), token=shown, position=position, alpha=self.rows.alpha,
                       tv=self.rows.tv)

    def controls(self) -> dict[str, Any]:
        values = {s.id: s.value for s in self.query(Slider)}
        out: dict[str, Any] = {"token": values["token"]}
        if self.rows is not None:
            out.update(p=list(self.rows.p), q=list(self.rows.q))
        else:
            out["closeness"] = values["closeness"]
        return out

    def numbers(self) -> dict[str, Any]:
        out = coupling_numbers(**self.controls(), sample=self.sampled, draws=DEFAULT_DRAWS, wrong=self.wrong)
        out["explain"] = MODES[self.mode]
        return out

    def refresh_numbers(self) -> None:
        t0 = time.perf_counter()
        n = self.numbers()
        if self.sampled:
            self.sample_s = time.perf_counter() - t0
        token = n["token"]
        self.query_one("#dist", DistributionBars).set(self.labels, n["p"], n["q"], mode=SPLIT, selected=token)
        self.show_pairs("numbers", [
            ("α = Σ min(p, q)", f"{n['alpha']:.3f}   {self.ts('alpha_means')}"),
            ("TV(p, q) = ½ Σ |p − q|", f"{n['tv']:.3f}"),
            ("1 − α", f"{n['rejection']:.3f}   = TV ✓"),
        ])
        title, said = self._explain(n)
        self.query_one("#explain-title", Static).update(Text(title, style="bold"))
        self.query_one("#explain", Prose).update(said)
        self._show_sampling(n.get("sampling"), n["p"])

    def _explain(self, n: dict[str, Any]) -> tuple[str, str]:
        """The explanation's title and its text (a Prose: a formula is never broken across lines)."""
        mode = MODES[self.mode]
        title = self.ts(f"mode.{mode}")
        if mode != "proof":
            return title, self.ts(f"explain.{mode}")
        pr = n["proof"]
        x = self.labels[n["token"]]
        values = {
            "x": x, "p": pr["p"], "q": pr["q"], "keep": number(pr["keep"], ".3f"), "acc": pr["accept_term"],
            "rej": pr["rejection"], "r": number(pr["r"], ".3f"), "rt": pr["reject_term"], "total": pr["total"],
            "alpha": n["alpha"],
        }
        return title, "\n".join(self.ts(f"proof.{i}", **values) for i in range(1, 6))

    def _show_sampling(self, sampling: dict[str, Any] | None, p: list[float]) -> None:
        histogram = self.query_one("#histogram", DistributionBars)
        box = self.query_one("#sampling", Static)
        if sampling is None:
            histogram.display = False
            box.update(Text(self.ts("press_s", n=DEFAULT_DRAWS)))
            return
        histogram.display = True
        histogram.set(self.labels, sampling["frequencies"], p, mode=COMPARE,
                      names=(self.ts("seen"), "p"))
        box.update(self._sampling_text(sampling))

    def _sampling_text(self, sampling: dict[str, Any]) -> Text:
        verdict = self.ts("pass" if sampling["passes"] else "fail")
        sampler = self.ts("sampler_wrong" if sampling["wrong_sampler"] else "sampler_right")
        out = Text()
        out.append(self.ts("drawn", n=sampling["draws"], ms=(self.sample_s or 0.0) * 1e3, sampler=sampler))
        out.append("\n")
        out.append(self.ts("chi", chi=sampling["chi_square"], dof=sampling["dof"], p=sampling["p_value"],
                                         level=sampling["significance"]))
        out.append("  " + verdict, style="bold")
        return out

    def on_slider_changed(self, event: Slider.Changed) -> None:
        event.stop()
        if event.slider.id == "closeness":
            self.sampled = False  # the last draws were of another q
        self.refresh_numbers()

    def action_explain(self) -> None:
        self.mode = (self.mode + 1) % len(MODES)
        self.refresh_numbers()

    def action_sample(self) -> None:
        self.sampled = True
        self.refresh_numbers()

    def action_wrong(self) -> None:
        self.wrong = not self.wrong
        self.sampled = True
        self.refresh_numbers()



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    t, x = slider_values(s)["closeness"], slider_values(s)["token"]
    p = list(TARGET_P)
    q = [(1 - t) * f + t * a for a, f in zip(p, FAR_Q, strict=True)]
    alpha = sum(min(a, b) for a, b in zip(p, q, strict=True))
    out = [("q", n["q"], [near(v) for v in q]), ("alpha", n["alpha"], near(alpha)),
           ("tv", n["tv"], near(1 - alpha)),  # ½ Σ |p − q| = 1 − Σ min(p, q)
           ("proof", n["proof"]["total"], near(p[x])),  # lossless: P(emit x) = p(x)
           ("accept_term", n["proof"]["accept_term"], near(min(p[x], q[x]))),
           ("explain", n["explain"], ("trust", "coupling", "proof")[s.mode]), ("sampled", "sampling" in n, s.sampled)]
    if s.sampled:  # the right sampler draws p (a χ² test passes); resampling from p on a rejection does not
        out.append(("passes", n["sampling"]["passes"], not s.wrong))
    return out


def _probes(s: Any, n: dict[str, Any]) -> Probes:
    return ([(shown(s, "numbers"), f"{n['alpha']:.3f}"), (shown(s, "numbers"), f"{n['tv']:.3f}")]
            + ([(s.query_one("#explain", Prose).text, f"= {n['proof']['total']:.3f}")] if n["explain"] == "proof"
               else [])
            + ([(shown(s, "sampling"), f"{n['sampling']['chi_square']:.4g}")] if "sampling" in n else []))


CHECKS = LessonChecks(
    _independent, _probes,
    # q = (p + far)/2 = .18 .13 .105 .105 .105 .11 .125 .14; Σ min(p, q) = .18+.13+.105+.105+.08+.06+.03+.02
    lambda n: [("alpha", n["alpha"], near(0.71)), ("tv", n["tv"], near(0.29))], keys=("t", "t", "s", "w"))


LESSON = Lesson(6, "lossless", LosslessScreen, lambda lang: coupling_numbers(), checks=CHECKS)
