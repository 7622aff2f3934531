"""What `bench --suite` prints: a table per configuration (and B − A with `--vs`), or one JSON object."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from specview.kernel.verdict import Outcome

if TYPE_CHECKING:
    from specview.catalog.suite import Suite
    from specview.features.live.bench_suite import SuiteRun
    from specview.kernel.request_spread import RequestSpread
    from specview.kernel.suite_fold import CategoryChange, CategoryFold, Change, Interval
    from specview.kernel.verdict import Estimate

NAME_CHARS = 160  # of a run's or a category's name as shown
MARKS = {Outcome.ABOVE: " ▲", Outcome.BELOW: " ▼", Outcome.WITHIN: ""}  # B above / below A beyond noise
FORMATS = {"alpha": ".2f", "tau": ".2f", "tokens_per_second": ".1f", "speedup": ".2f"}


def category_name(category: str, lang: str) -> str:
    """A known category's name in `lang` (texts/suite.*.toml); a user's own id as written, made safe."""
    from specview.boundary.text import sanitize
    from specview.catalog.suite import KNOWN_CATEGORIES
    from specview.texts.catalog import text

    if category in KNOWN_CATEGORIES:
        return text(f"suite.category.{category}", lang)
    return sanitize(category, NAME_CHARS, one_line=True)


def _cell(value: float | None, interval: Interval | None, fmt: str, sign: bool = False) -> str:
    if value is None:
        return "—"
    spec = f"+{fmt}" if sign else fmt
    if interval is None:
        return format(value, spec)
    return f"{value:{spec}} [{interval[0]:{spec}}, {interval[1]:{spec}}]"


def _mean_cell(estimate: Estimate | None, fmt: str) -> str:
    return "—" if estimate is None else _cell(estimate.value, estimate.interval, fmt)


def _change_cell(found: Change | None, fmt: str) -> str:
    return "—" if found is None else _cell(found.value, found.interval, fmt, sign=True) + MARKS[found.outcome]


def _headers(lang: str, delta: bool = False) -> list[str]:
    from specview.texts.catalog import text

    keys = ("alpha", "tau", "tokens_per_second", "speedup")
    first = [text("suite.col.category", lang), *([] if delta else [text("suite.col.prompts", lang)])]
    return first + [text(f"suite.col.{'delta_' if delta else ''}{key}", lang) for key in keys]


def _fold_rows(folds: Sequence[CategoryFold], lang: str) -> list[list[str]]:
    return [[category_name(f.category, lang), str(f.prompts), _cell(f.alpha, f.alpha_interval, FORMATS["alpha"]),
             _mean_cell(f.tau, FORMATS["tau"]), _mean_cell(f.tokens_per_second, FORMATS["tokens_per_second"]),
             _mean_cell(f.speedup, FORMATS["speedup"])] for f in folds]


def _change_rows(diff: Sequence[CategoryChange], lang: str) -> list[list[str]]:
    return [[category_name(c.category, lang), _change_cell(c.alpha, FORMATS["alpha"]),
             _change_cell(c.tau, FORMATS["tau"]), _change_cell(c.tokens_per_second, FORMATS["tokens_per_second"]),
             _change_cell(c.speedup, FORMATS["speedup"])] for c in diff]


def spread_lines(spread: RequestSpread, lang: str) -> list[str]:
    """The prompts' per-request spread: its histogram (scale stated) and who is far from the rest."""
    from specview.boundary.bounds import MAX_SHOWN
    from specview.boundary.text import sanitize
    from specview.report.request_spread import chart, summary

    if not spread.count:
        return []
    drawn = [line.render(lang) if not isinstance(line, str) else line for line in chart(spread)]
    return ["", *drawn, sanitize(summary(spread).render(lang), MAX_SHOWN, one_line=True)]


def table_lines(suite: Suite, done: Sequence[SuiteRun], diff: Sequence[CategoryChange] | None,
                lang: str) -> list[str]:
    """For people: the suite, each configuration's table, what the intervals are, B − A."""
    from specview.boundary.text import sanitize
    from specview.cli.table import right_aligned
    from specview.features.live.bench_suite import spread_of
    from specview.texts.catalog import fill, text

    lines = [fill("suite.heading", lang, name=sanitize(suite.name, NAME_CHARS, one_line=True),
                  license=sanitize(suite.license, NAME_CHARS, one_line=True), prompts=len(suite.prompts()),
                  categories=len(suite.categories))]
    for label, run in zip("AB", done, strict=False):
        lines.append("")
        lines.append(fill("suite.run", lang, label=label, name=sanitize(run.name, NAME_CHARS, one_line=True)))
        lines += right_aligned([_headers(lang), *_fold_rows(run.folds, lang)])
        if run.prompt_independent:
            lines.append(text("suite.sim_note", lang))
        lines += spread_lines(spread_of(run.runs), lang)
    lines.append(text("suite.intervals", lang))
    if diff is not None:
        lines += ["", text("suite.delta_heading", lang)]
        lines += right_aligned([_headers(lang, delta=True), *_change_rows(diff, lang)])
        lines.append(text("suite.delta_marks", lang))
    return lines


def _interval(interval: Interval | None) -> list[float] | None:
    return None if interval is None else [round(interval[0], 4), round(interval[1], 4)]


def _mean_json(estimate: Estimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    return {"mean": round(estimate.value, 4), "standard_error": estimate.spread, "samples": estimate.samples,
            "interval": _interval(estimate.interval)}


def _fold_json(f: CategoryFold) -> dict[str, Any]:
    return {"category": f.category, "prompts": f.prompts, "tokens": f.tokens, "accepted": f.accepted,
            "verified": f.verified, "alpha": None if f.alpha is None else round(f.alpha, 4),
            "alpha_interval": _interval(f.alpha_interval), "tau": _mean_json(f.tau),
            "tokens_per_second": _mean_json(f.tokens_per_second), "speedup": _mean_json(f.speedup)}


def _change_json(found: Change | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {"value": round(found.value, 4), "interval": _interval(found.interval), "outcome": found.outcome.value}


def json_object(suite: Suite, done: Sequence[SuiteRun], diff: Sequence[CategoryChange] | None) -> dict[str, Any]:
    """For scripts: the suite, each configuration's categories and prompts, B − A (null without --vs).
    English texts (as every `--json` of specview)."""
    from specview.features.live.bench_suite import spread_of
    from specview.report.request_spread import spread_json
    from specview.texts.catalog import text

    runs = [{"name": run.name, "backend": str(run.spec.kind), "prompt_independent": run.prompt_independent,
             "note": text("suite.sim_note", "en") if run.prompt_independent else None,
             "categories": [_fold_json(f) for f in run.folds],
             "prompts": [{"category": r.category, "tokens": r.tokens, "accepted": r.accepted,
                          "verified": r.verified, "tau": r.tau, "tokens_per_second": r.tokens_per_second,
                          "speedup": r.speedup, "drafted": r.drafted} for r in run.runs],
             "per_request": spread_json(spread_of(run.runs))} for run in done]
    difference = None if diff is None else [
        {"category": c.category, "alpha": _change_json(c.alpha), "tau": _change_json(c.tau),
         "tokens_per_second": _change_json(c.tokens_per_second), "speedup": _change_json(c.speedup)}
        for c in diff]
    return {"suite": {"name": suite.name, "license": suite.license, "source": suite.source,
                      "categories": [c.id for c in suite.categories]},
            "intervals": text("suite.intervals", "en"), "runs": runs, "difference": difference}
