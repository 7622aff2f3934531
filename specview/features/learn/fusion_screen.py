"""8 · Feature–token fusion: concat-then-project as shapes for five drafter families; `g` reads a GGUF."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Static

from specview.boundary.crash_log import internal_error_line, write_crash_log
from specview.boundary.text import sanitize
from specview.features.learn import show
from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    shown,
    slider_values,
)
from specview.features.learn.explain.fusion import (
    D_MODELS,
    DEFAULT_D_MODEL,
    DEFAULT_RATIO,
    DEFAULT_VARIANT,
    DRAFT_RATIOS,
    VARIANTS,
    fusion_numbers,
)
from specview.features.learn.registry import Lesson
from specview.features.learn.tags import tag
from specview.kernel.errors import SpecviewError
from specview.texts.catalog import fill
from specview.widgets.bindings import bind
from specview.widgets.prose import Prose, plain
from specview.widgets.slider import Slider

STRIP = 48  # cells for the picture of W's column blocks


class FusionScreen(LearnScreen):
    """Variant, width and drafter-width sliders; the fusion as shapes and as a sum of projections."""

    BINDINGS = [bind("g", "read_gguf", "learn.fusion.gguf")]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gguf: dict[str, Any] | None = None

    def body(self) -> ComposeResult:
        yield Slider(self.ts("variant"), list(VARIANTS), VARIANTS.index(DEFAULT_VARIANT),
                     lambda v: self.ts(f"name.{v}"), id="variant")
        yield Slider("d_model", list(D_MODELS), D_MODELS.index(DEFAULT_D_MODEL), str, id="d_model")
        yield Slider(self.ts("ratio"), list(DRAFT_RATIOS), DRAFT_RATIOS.index(DEFAULT_RATIO),
                     lambda v: self.ts("ratio_value", ratio=v),
                     id="ratio")
        yield Prose(id="what", classes="learn-numbers")
        yield Static(id="shapes", classes="learn-numbers")
        yield Static(id="numbers", classes="learn-numbers")
        yield Prose(id="gguf_hint", classes="learn-note")
        yield Static(id="gguf", classes="learn-note")
        yield Prose(self.ts("note"), classes="learn-note")
        yield Prose(self.t("learn.fusion.sets"), classes="learn-note")

    def controls(self) -> dict[str, Any]:
        values = {s.id: s.value for s in self.query(Slider)}
        return {"variant": values["variant"], "d_model": values["d_model"], "draft_ratio": values["ratio"]}

    def numbers(self) -> dict[str, Any]:
        out = fusion_numbers(**self.controls())
        if self.gguf is not None:
            out["gguf"] = self.gguf
        return out

    def refresh_numbers(self) -> None:
        n = self.numbers()
        narrower = n["draft_ratio"] is not None  # only a separate, narrower drafter has a width of its own
        self.query_one("#ratio", Slider).display = narrower
        about = self.ts(f"about.{n['variant']}")
        if narrower:
            about += "\n" + fill("learn.fusion.ratio_note", self.lang, ratio=n["draft_ratio"])
        self.query_one("#what", Prose).update(about)
        self.query_one("#shapes", Static).update(self._shapes(n))
        flags = [
            (self.ts("token_input"), self.ts("yes" if n["token_input"] else "no")),
            (self.ts("width"), f"d_draft {n['d_draft']} " + self.ts("same" if n["shares_width"] else "narrower")
             + (" " + tag("illustrative", self.lang) if narrower else "")),
            (self.ts("kv"), self.ts("yes" if n["shares_kv_cache"] else "no")),
            (self.ts("params"), show.count(n["params"]) if n["params"] else "0"),
        ]
        self.show_pairs("numbers", flags)
        self._show_gguf()

    def _shapes(self, n: dict[str, Any]) -> Text:
        out = Text()
        inputs = " ⊕ ".join(f"Norm({i['name']}) [{i['dim']}]" for i in n["inputs"])
        out.append(f"{self.ts('concat')}  {inputs} → z [{n['concat_dim']}]\n")
        if not n["projections"]:
            out.append(self.ts("no_projection", d=n["d_model"]), style="bold")
            return out
        for proj in n["projections"]:
            rows, cols = proj["shape"]
            out.append(f"{self.ts('project')}  {proj['name']}: W ({rows} × {cols}) · z → [{rows}]\n", style="bold")
            out.append(self._strip(proj))
            terms = " + ".join(f"W_{b['input']}·{b['input']}" for b in proj["blocks"])
            sizes = ", ".join(f"W_{b['input']} ({b['shape'][0]} × {b['shape'][1]})" for b in proj["blocks"])
            out.append(f"{self.ts('sum')}  W·z = {terms}   {sizes}\n")
        return out

    @staticmethod
    def _strip(proj: dict[str, Any]) -> Text:
        """W drawn as its column blocks, each as wide as its input: [ W_h │ W_e ]."""
        total = sum(b["shape"][1] for b in proj["blocks"])
        out = Text("   [")
        for i, block in enumerate(proj["blocks"]):
            if i:
                out.append("│")
            width = max(4, round(block["shape"][1] / total * STRIP))
            name = f"W_{block['input']}"
            left = (width - cell_len(name)) // 2
            fill = "▒" if i % 2 else "░"
            out.append(fill * left + name + fill * (width - left - cell_len(name)))
        out.append("]\n")
        return out

    def _show_gguf(self) -> None:
        box, hint = self.query_one("#gguf", Static), self.query_one("#gguf_hint", Prose)
        box.display, hint.display = self.gguf is not None, self.gguf is None
        if self.gguf is None:
            has_model = self.run is not None and self.run.target_path
            hint.update(self.ts("press_g") if has_model else self.no_model_text(self.ts("no_model")))
            return
        g = self.gguf
        lines = [self.ts("gguf_head", name=g["model"], arch=g["architecture"], d=g["n_embd"] or "?",
                         nextn=g["nextn_layers"])]
        if not g["tensors"]:
            lines.append(self.ts("gguf_none"))
        for t in g["tensors"]:
            shape = " × ".join(str(d) for d in t["shape"])
            mark = "  ✓ " + self.ts("gguf_match") if t["in_trunk"] else ""
            lines.append(f"  {t['name']}  ({shape})  {t['type']}{mark}")
        box.update(Text("\n".join(lines)))

    def action_read_gguf(self) -> None:
        path = self.run.target_path if self.run is not None else None
        if not path:
            self.notify(plain(self.no_model_text(self.ts("no_model"))), severity="warning", markup=False)
            return
        self._read(path)

    @work(thread=True, exclusive=True, exit_on_error=False, group="gguf")
    def _read(self, path: str) -> None:
        """Read the GGUF off the UI thread; whatever happens, a notification says so."""
        from specview.features.learn.local_model import gguf_facts

        try:
            found = gguf_facts(path)
        except SpecviewError as exc:
            self.app.call_from_thread(self._not_read, exc.in_language(self.lang))
        except Exception as exc:  # noqa: BLE001 - a bug: named (traceback in the crash log), never silent
            self.app.call_from_thread(self._not_read, internal_error_line(exc, write_crash_log(exc)))
        else:
            self.app.call_from_thread(self._got_gguf, found)

    def _not_read(self, reason: str) -> None:
        self.failed(reason, self.t("inputs.gguf.failed"))

    def _got_gguf(self, found: dict[str, Any]) -> None:
        self.gguf = found
        if found["n_embd"] in D_MODELS:
            self.query_one("#d_model", Slider).select(found["n_embd"])
        self.refresh_numbers()
        said = fill("inputs.gguf.read", self.lang, name=found["model"], tensors=len(found["tensors"]),
                    d=found["n_embd"] or "?", nextn=found["nextn_layers"])
        self.notify(sanitize(said), timeout=8, markup=False)



FUSION_MAPS: dict[str, Callable[[int, float], list[tuple[int, int]]]] = {
    # (out, in) of each projection for d_model d, draft ratio r: concat the inputs, then project
    "medusa": lambda d, r: [],  # the heads read h alone: nothing to fuse
    "eagle": lambda d, r: [(d, 2 * d)],  # fc over [h; e]
    "eagle3": lambda d, r: [(d, 3 * d), (d, 2 * d)],  # three layers folded to one, then joined with e
    "in-trunk": lambda d, r: [(d, 2 * d)],  # eh_proj, (n_embd, 2·n_embd) in a GGUF
    "gemma4": lambda d, r: [(int(d * r), 2 * d)],  # a narrower drafter of width r·d
}


def _independent(s: Any, n: dict[str, Any]) -> Checks:
    values = slider_values(s)
    maps = FUSION_MAPS[values["variant"]](values["d_model"], values["ratio"])
    return [("shapes", [tuple(p["shape"]) for p in n["projections"]], maps),
            ("params", n["params"], sum(rows * cols for rows, cols in maps))]


CHECKS = LessonChecks(
    _independent,
    lambda s, n: [(shown(s, "shapes"), f"W ({p['shape'][0]} × {p['shape'][1]})") for p in n["projections"]]
    or [(shown(s, "shapes"), str(n["d_model"]))],
    lambda n: [("params", n["params"], 33_554_432)])  # eh_proj at d_model 4096: 4096 × 8192 weights


LESSON = Lesson(8, "fusion", FusionScreen, lambda lang: fusion_numbers(), checks=CHECKS)
