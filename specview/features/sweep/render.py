"""`specview sweep` output for people: fixed-width tables, a terminal bar chart, Markdown.

Every word comes from the catalogs (texts/sweep.<lang>.toml); numbers use one em-dash rule
(`number`, boundary/text.py). The chart is plain text: one bar per row, scaled to the largest value,
the best γ (or the crossover) marked with ★ / ✗ so it reads without colour.
"""

from __future__ import annotations

from specview.boundary.text import number, sanitize
from specview.cli.table import right_aligned
from specview.features.live.run_text import note_texts
from specview.features.sweep.model import GammaSweep, LoadSweep
from specview.kernel.verdict import Estimate, Outcome
from specview.texts.catalog import fill, text

BAR_WIDTH = 36
BLOCKS = " ▏▎▍▌▋▊▉█"


def bar(value: float | None, top: float, width: int = BAR_WIDTH, fill: str = "█") -> str:
    """A horizontal bar of `value` / `top` × `width` cells: in eighths when solid, whole cells
    of `fill` otherwise (the dotted theory / speculation-off bars)."""
    if value is None or top <= 0:
        return " " * width
    share = max(0.0, min(1.0, value / top))
    if fill != "█":
        return (fill * round(share * width)).ljust(width)
    full, part = divmod(round(share * width * 8), 8)
    return ("█" * full + (BLOCKS[part] if part else "")).ljust(width)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return right_aligned([header, *rows])


def gamma_header(lang: str) -> list[str]:
    return ["γ", text("sweep.tps", lang), text("sweep.speedup", lang), "τ", text("sweep.tau_curve", lang),
            "α", "v(γ)", text("sweep.pred_speedup", lang), text("sweep.pred_tps", lang), ""]


def gamma_rows(sweep: GammaSweep, lang: str) -> list[list[str]]:
    rows = []
    for r in sweep.rows:
        p = r.point
        rows.append([
            text("sweep.plain", lang) if p.gamma == 0 else str(p.gamma),
            _with_spread(p.tokens_per_second, p.tokens_per_second_spread), number(r.speedup, ".2f"),
            number(p.tau, ".2f"),
            number(r.tau_from_curve, ".2f"), number(p.acceptance_rate, ".3f"), number(r.verify_ratio, ".2f"),
            number(r.predicted_speedup, ".2f"), number(r.predicted_tokens_per_second, ".1f"),
            "★ " + text("sweep.best", lang) if r.best else "",
        ])
    return rows


def gamma_text(sweep: GammaSweep, lang: str) -> str:
    """Table, chart and notes."""
    lines = [text("sweep.gamma_title", lang), *_table(gamma_header(lang), gamma_rows(sweep, lang)), ""]
    lines.append(f"α {number(sweep.alpha, '.3f')} · {_c(sweep, lang)} · "
                 f"{text('sweep.curve', lang)} {' '.join(number(a, '.2f') for a in sweep.curve) or '—'}")
    lines += [f"· {line}" for line in missing_lines(sweep, lang)]
    lines.append("")
    top = max([r.point.tokens_per_second or 0.0 for r in sweep.rows]
              + [r.predicted_tokens_per_second or 0.0 for r in sweep.rows], default=0.0)
    lines.append(text("sweep.chart_gamma", lang))
    for r in sweep.rows:
        label = text("sweep.plain", lang) if r.point.gamma == 0 else f"γ {r.point.gamma}"
        mark = " ★" if r.best else ""
        measured = _with_spread(r.point.tokens_per_second, r.point.tokens_per_second_spread)
        lines.append(f"{label:>7} │{bar(r.point.tokens_per_second, top)}│ {measured}{mark}")
        if r.predicted_tokens_per_second is not None and r.point.gamma > 0:
            lines.append(f"{'':>7} ┊{bar(r.predicted_tokens_per_second, top, fill='░')}┊ "
                         f"{number(r.predicted_tokens_per_second, '.1f')} {text('sweep.theory', lang)}")
    lines += ["", best_line(sweep, lang)]
    if sweep.auto is not None:
        lines += ["", auto_line(sweep, lang)]
    lines += ["", *(f"· {n}" for n in note_texts(sweep.notes, lang))]
    return "\n".join(lines).rstrip() + "\n"


def _with_spread(value: float | None, spread: float | None) -> str:
    """`55.0 ± 1.2` tok/s (one standard error), the value alone where the spread is unknown."""
    return number(value, ".1f") + ("" if value is None or spread is None else f" ± {number(spread, '.1f')}")


def best_line(sweep: GammaSweep, lang: str) -> str:
    """What the ★ means, or that no γ earned it (kernel/verdict.py)."""
    return text("verdict.gamma.best_rule" if sweep.best_gamma is not None else "verdict.gamma.no_best", lang)


def _c(sweep: GammaSweep, lang: str) -> str:
    """`c 0.021`, or `c —` with the reason where the engine does not time drafting."""
    why = sweep.missing.get("c")
    return f"c {number(sweep.c, '.3f')}" + ("" if why is None else f" ({text(why, lang)})")


def missing_lines(sweep: GammaSweep, lang: str) -> list[str]:
    """Why the v(γ) and theory columns are "—" where the engine cannot give them, and the speedup
    column where the plain run was measured while the machine was busy."""
    out = []
    for key, label in (("verify_ratio", "v(γ)"), ("predicted_speedup", text("sweep.pred_speedup", lang))):
        why = sweep.missing.get(key)
        if why is not None:
            out.append(fill("measured.table.missing", lang, gauge=label, why=text(why, lang)))
    if sweep.speedup_withheld is not None:
        out.append(fill("measured.table.missing", lang, gauge=text("sweep.speedup", lang), why=sweep.speedup_withheld))
    return out


def auto_line(sweep: GammaSweep, lang: str) -> str:
    """`--gamma auto chose γ 3 (why), 21.5 tok/s · the measured best: γ 4, 22.0 tok/s` (or, with no
    best beyond noise, the fastest run named as not faster beyond noise)."""
    auto = sweep.auto
    assert auto is not None
    why = fill(f"gammaauto.why.{auto.why}", lang, gamma=auto.gamma)
    chose = {"gamma": auto.gamma, "why": why, "tps": number(auto.tokens_per_second, ".1f")}
    best = next((r.point for r in sweep.rows if r.best), None)
    if best is None:
        timed = [r.point for r in sweep.rows if r.point.tokens_per_second is not None]
        fastest = max(timed, key=lambda p: p.tokens_per_second or 0.0, default=None)
        return fill("verdict.gamma.auto_no_best", lang, **chose,
                    fastest=number(None if fastest is None else fastest.gamma, ""),
                    fastest_tps=number(None if fastest is None else fastest.tokens_per_second, ".1f"))
    return fill("gammaauto.sweep", lang, **chose, best=number(sweep.best_gamma, ""),
                best_tps=number(best.tokens_per_second, ".1f"))


def load_header(lang: str) -> list[str]:
    return [text("sweep.concurrency", lang), text("sweep.on_tps", lang), text("sweep.off_tps", lang),
            text("sweep.gain", lang), text("verdict.load.column", lang), text("verdict.load.on_drafts", lang),
            text("verdict.load.off_drafts", lang), text("sweep.on_req", lang), text("sweep.off_req", lang), ""]


def _rate(mean: float, samples: tuple[float, ...]) -> str:
    """`78.1 ± 1.2` (one standard error over the repeats), the mean alone from a single repeat."""
    spread = Estimate.of(samples).spread if samples else None
    return number(mean, ".1f") + ("" if spread is None else f" ± {number(spread, '.1f')}")


def _drafts(drafted: int | None, accepted: int | None) -> str:
    """`312 / 280` (drafted / accepted), — when the server did not tell."""
    return "—" if drafted is None else f"{drafted} / {number(accepted, '')}"


def outcome_text(outcome: Outcome, lang: str) -> str:
    return text(f"verdict.outcome.{outcome.value}", lang)


def load_rows(sweep: LoadSweep, lang: str) -> list[list[str]]:
    rows = []
    crossover = sweep.stops_paying  # ✗ where it stopped paying beyond noise
    for p in sweep.points:
        rows.append([str(p.concurrency), _rate(p.on_tokens_per_second, p.on_samples),
                     _rate(p.off_tokens_per_second, p.off_samples), number(p.gain, ".2f"),
                     outcome_text(p.verdict.outcome, lang), _drafts(p.on_drafted, p.on_accepted),
                     _drafts(p.off_drafted, p.off_accepted), number(p.on_per_request, ".1f"),
                     number(p.off_per_request, ".1f"),
                     "✗ " + text("sweep.crossover", lang) if p.concurrency == crossover else ""])
    return rows


def load_text(sweep: LoadSweep, lang: str) -> str:
    which = (f"{text('sweep.on', lang)}: {sanitize(sweep.on_label, 200, one_line=True)} · "
             f"{text('sweep.off', lang)}: {sanitize(sweep.off_label, 200, one_line=True)}")
    lines = [text("sweep.load_title", lang), which,
             *_table(load_header(lang), load_rows(sweep, lang)), ""]
    lines += [verdict(sweep, lang), rule_line(sweep, lang)]
    lines += ["", text("sweep.chart_load", lang)]
    top = max([max(p.on_tokens_per_second, p.off_tokens_per_second) for p in sweep.points], default=0.0)
    crossover = sweep.stops_paying  # ✗ where it stopped paying beyond noise
    for p in sweep.points:
        mark = " ✗" if p.concurrency == crossover else ""
        lines.append(f"{p.concurrency:>4} {text('sweep.on', lang):>4} │{bar(p.on_tokens_per_second, top)}│ "
                     f"{_rate(p.on_tokens_per_second, p.on_samples)}{mark}")
        lines.append(f"{'':>4} {text('sweep.off', lang):>4} ┊{bar(p.off_tokens_per_second, top, fill='░')}┊ "
                     f"{_rate(p.off_tokens_per_second, p.off_samples)}")
    lines += ["", *(f"· {n}" for n in note_texts(sweep.notes, lang))]
    return "\n".join(lines).rstrip() + "\n"


def rule_line(sweep: LoadSweep, lang: str) -> str:
    """How the verdict was reached (kernel/verdict.py), or why one repeat cannot reach one."""
    if sweep.repeats > 1:
        return fill("verdict.load.rule", lang, repeats=sweep.repeats)
    return text("verdict.load.rule_single", lang)


def verdict(sweep: LoadSweep, lang: str) -> str:
    """Where speculation stops paying beyond noise, in one sentence."""
    crossover = sweep.crossover
    if crossover is None:
        return text("verdict.load.paid_everywhere", lang)
    outcomes = {p.verdict.outcome for p in sweep.points}
    if outcomes == {Outcome.WITHIN}:
        return text("verdict.load.no_difference", lang)
    first = min(sweep.points, key=lambda p: p.concurrency)
    if crossover == first.concurrency:
        if first.verdict.outcome is Outcome.BELOW:
            return fill("verdict.load.slower_at_first", lang, n=crossover)
        return fill("verdict.load.not_at_first", lang, n=crossover)
    return fill("verdict.load.stops_at", lang, n=crossover)


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def cells(values: list[str]) -> str:
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"

    return [cells(header), "|" + "---|" * len(header), *(cells(r) for r in rows)]


def gamma_markdown(sweep: GammaSweep, lang: str) -> str:
    lines = [f"# {text('sweep.gamma_title', lang)}", "", *_md_table(gamma_header(lang), gamma_rows(sweep, lang)), "",
             f"- α {number(sweep.alpha, '.3f')}, {_c(sweep, lang)}",
             *(f"- {line}" for line in missing_lines(sweep, lang)),
             f"- {text('sweep.curve', lang)}: {', '.join(number(a, '.3f') for a in sweep.curve) or '—'}",
             f"- {text('sweep.method_gamma', lang)}",
             *(f"- {n}" for n in note_texts(sweep.notes, lang)), "", "```", gamma_text(sweep, lang).rstrip(), "```"]
    return "\n".join(lines) + "\n"


def load_markdown(sweep: LoadSweep, lang: str) -> str:
    lines = [f"# {text('sweep.load_title', lang)}", "",
             f"- {text('sweep.on', lang)}: `{sanitize(sweep.on_label, 200, one_line=True)}`",
             f"- {text('sweep.off', lang)}: `{sanitize(sweep.off_label, 200, one_line=True)}`", "",
             *_md_table(load_header(lang), load_rows(sweep, lang)), "",
             f"- {verdict(sweep, lang)}", f"- {rule_line(sweep, lang)}",
             f"- {text('sweep.method_load', lang)}",
             *(f"- {n}" for n in note_texts(sweep.notes, lang)), "", "```", load_text(sweep, lang).rstrip(), "```"]
    return "\n".join(lines) + "\n"
