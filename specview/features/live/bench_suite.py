"""`specview bench --suite [NAME|FILE]`: one bench run per prompt of a suite (catalog/suite.py), folded
per category (kernel/suite_fold.py), as a table or `--json`; `--vs "OPTIONS"` runs the suite again with
those options on top of the command's own (`--gamma 2`, `--draft D.gguf`, or a selector such as
`url:http://host:8080/v1`) and prints B − A per category.

A simulator run draws its rounds from the preset's acceptance model and reads only the prompt's length
(as context, for presets whose acceptance decays with it) and language, never its content: its
categories differ only by that, by construction, and the output says so (`prompt_independent`).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from specview.kernel.backend import BackendKind

if TYPE_CHECKING:
    from specview.catalog.suite import Suite
    from specview.kernel.request_spread import RequestSpread
    from specview.kernel.runspec import RunSpec
    from specview.kernel.suite_fold import CategoryFold, PromptRun

# what `--vs` may not change: the output and the suite are the command's, not one configuration's
SEEDS = 2**32  # --seed's range
VS_REFUSED = frozenset({"suite", "vs", "json", "table", "record", "force", "baseline_url", "lang"})


@dataclass(frozen=True, slots=True)
class SuiteRun:
    """One configuration over the whole suite."""

    name: str
    spec: RunSpec
    runs: list[PromptRun]
    folds: list[CategoryFold]

    @property
    def prompt_independent(self) -> bool:
        """True for the simulator: its acceptance never depends on the prompt's content."""
        return self.spec.kind is BackendKind.SIM


def prompt_run(category: str, stats: dict[str, Any]) -> PromptRun:
    """One prompt's numbers from its `bench --json` stats object."""
    from specview.kernel.suite_fold import PromptRun

    drafted = stats.get("drafted")
    return PromptRun(category, int(stats["accepted"]), int(stats["verified"]), int(stats["tokens"]),
                     stats.get("tau"), stats.get("tokens_per_second"), stats.get("speedup"),
                     None if drafted is None else int(drafted))


def spread_of(runs: list[PromptRun]) -> RequestSpread:
    """Each prompt's acceptance (accepted ÷ drafted), as requests named `<category>-<n>` (the n-th
    prompt of that category in the suite's order): the per-request spread (kernel/request_spread.py)."""
    from collections import Counter

    from specview.kernel.request_spread import RequestCounts, RequestSpread

    spread, seen = RequestSpread(), Counter[str]()
    for run in runs:
        seen[run.category] += 1
        if run.drafted is not None:
            spread.add(RequestCounts(f"{run.category}-{seen[run.category]}", run.accepted, run.drafted))
    return spread


def run_config(spec: RunSpec, suite: Suite, args: argparse.Namespace) -> SuiteRun:
    """Every prompt of `suite` through `spec`, one headless run each (bench's own `bench_one`), the
    prompt numbered i (from 0, in the file's order) with seed `--seed` + i."""
    from specview.features.live.bench_command import bench_one, paired_baseline
    from specview.kernel.suite_fold import fold

    runs, name = [], ""
    for index, (category, prompt) in enumerate(suite.prompts()):
        # its own seed per prompt: repeats of one draw would make the simulator's spread 0, a false precision
        one = replace(spec, prompt=prompt, seed=(spec.seed + index) % SEEDS)
        if args.baseline_url:
            one = paired_baseline(one, args.baseline_url)
        result = bench_one(one, args.rounds if one.kind is BackendKind.SIM else None)
        runs.append(prompt_run(category, result.stats))
        name = name or result.reading.info.run_label  # backend, model and drafter, γ, T: what --vs changes
    return SuiteRun(name, spec, runs, fold(runs))


def vs_spec(args: argparse.Namespace) -> RunSpec:
    """The second configuration: the command's options with `--vs`'s on top (a selector in it
    replaces the command's; without one the command's own selector, if any, stays)."""
    import shlex

    from specview.cli.parser import build_parser
    from specview.cli.runspec_args import specs_from_args
    from specview.kernel.errors import CliError

    try:
        tokens = shlex.split(args.vs)
    except ValueError:
        raise CliError("suite.err.vs_quote", vs=args.vs) from None
    parser = build_parser(args.lang or "en")
    given, bare = vars(parser.parse_args(["bench", *tokens])), vars(parser.parse_args(["bench"]))
    changed = {key: value for key, value in given.items() if bare.get(key, object()) != value}
    if not changed or VS_REFUSED & changed.keys():
        raise CliError("suite.err.vs_options", vs=args.vs)
    merged = argparse.Namespace(**{**vars(args), **changed})
    specs = specs_from_args(merged, speed=0.0, max_rounds=merged.rounds)
    if len(specs) > 1:
        raise CliError("suite.err.one_run")
    return specs[0]


def run_suite(args: argparse.Namespace) -> int:
    """`bench --suite`: load the suite, run each configuration over it, print the fold."""
    from specview.catalog.suite import load_suite
    from specview.cli.runspec_args import specs_from_args, specs_key_notice, warn_notice
    from specview.features.live.bench_suite_output import json_object, table_lines
    from specview.kernel.errors import CliError
    from specview.kernel.langs import DEFAULT_LANG
    from specview.kernel.suite_fold import changes

    lang = args.lang or DEFAULT_LANG
    suite = load_suite(args.suite)  # a bad file stops here, before any model loads
    if getattr(args, "record", None):
        raise CliError("suite.err.record")
    specs = specs_from_args(args, speed=0.0, max_rounds=args.rounds)
    if len(specs) > 1:
        raise CliError("suite.err.one_run")
    configs = [specs[0], *([vs_spec(args)] if args.vs else [])]
    if any(spec.kind is BackendKind.REPLAY for spec in configs):
        raise CliError("suite.err.replay")
    warn_notice(specs_key_notice(configs, lang, [args.baseline_url]))
    done = [run_config(spec, suite, args) for spec in configs]
    diff = changes(done[0].folds, done[1].folds) if len(done) == 2 else None
    if args.json:
        from specview.boundary.jsonio import dumps

        print(dumps(json_object(suite, done, diff)), flush=True)
    if args.table or not args.json:
        for line in table_lines(suite, done, diff, lang):
            print(line)
    return 0
