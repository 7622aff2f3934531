"""6 · Lossless rejection sampling: p and q, their overlap α, the proof with numbers, and a sampling check."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from specview.boundary.text import number
from specview.features.learn.base import LearnScreen
from specview.features.learn.explain.coupling import (
    CLOSENESS_STEP,
    DEFAULT_CLOSENESS,
    DEFAULT_DRAWS,
    TARGET_P,
    coupling_numbers,
)
from specview.features.learn.explain.rounds import label
from specview.features.learn.registry import Lesson
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
            token = self.run.token if self.run is not None else None
            if token is not None:
                yield Prose(self.ts("live_token",
                    token=label(token.text), p=number(token.p, ".3f"),
                    q=number(token.q, ".3f")), classes="learn-legend")
            yield Slider(self.ts("closeness"), CLOSENESS, CLOSENESS.index(DEFAULT_CLOSENESS), lambda v: f"{v:.2f}",
                         id="closeness")
        else:
            yield Static(self._live_header(), classes="learn-legend")
        start = self.rows.chosen if self.rows is not None else 0
        yield Slider(self.ts("token"), list(range(len(self.labels))), start, lambda i: self.labels[i], id="token")
        yield DistributionBars(id="dist")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Static(id="numbers", classes="learn-numbers")
        yield Static(id="explain", classes="learn-numbers")
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

    def _live_header(self) -> Text:
        assert self.run is not None and self.rows is not None
        token = self.run.token
        shown = label(token.text) if token is not None else "?"
        position = "?" if token is None or token.position is None else str(token.position + 1)
        return Text(self.ts("live", token=shown, position=position, alpha=self.rows.alpha, tv=self.rows.tv))

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
        self.query_one("#explain", Static).update(self._explain(n))
        self._show_sampling(n.get("sampling"), n["p"])

    def _explain(self, n: dict[str, Any]) -> Text:
        mode = MODES[self.mode]
        out = Text()
        out.append(self.ts(f"mode.{mode}") + "\n", style="bold")
        if mode != "proof":
            out.append(self.ts(f"explain.{mode}"))
            return out
        pr = n["proof"]
        x = self.labels[n["token"]]
        values = {
            "x": x, "p": pr["p"], "q": pr["q"], "keep": number(pr["keep"], ".3f"), "acc": pr["accept_term"],
            "rej": pr["rejection"], "r": number(pr["r"], ".3f"), "rt": pr["reject_term"], "total": pr["total"],
            "alpha": n["alpha"],
        }
        for i in range(1, 6):
            out.append(self.ts(f"proof.{i}", **values) + "\n")
        return out

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


LESSON = Lesson(6, "lossless", LosslessScreen, lambda lang: coupling_numbers())
