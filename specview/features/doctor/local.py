"""`specview doctor --target T.gguf [--draft D.gguf|ngram|ngram,D.gguf]`: the same findings for a
local llama.cpp pair, from two short runs of our own.

The spec flags are `specview`'s own (RunSpec and LlamaRunOptions, parsed by cli/runspec_args.py):
`--target`, `--draft`, `--gamma`, `--prompt`, `--max-tokens`, `--threads`… First the draft's
vocabulary is checked against the target's from the two files' tokenizer metadata
(backends/local/gguf_vocab.py): a pair llama.cpp would refuse is one finding, and nothing runs.
Then one speculative run and one plain run (`--no-spec`'s) of the same model on the same prompt,
each bounded (LOCAL_TOKENS tokens unless `--max-tokens`, at most MAX_LOCAL_TOKENS; the engine's own
limits on time), one after the other, each through the same Session `specview bench` runs.

What doctor's rules read (rules.py) is built from the speculative run's metrics: its drafting
rounds are the drafts, its per-position acceptance the per-position counts, its tokens/s the
measured speed with speculation and the plain run's tokens/s the baseline, so "does it pay" is
measured and c is implied by the same formula as for a server. The loop's own calibrated plain
step (overlay's `plain_tokens_per_second`) and its measured draft cost stand beside them in the
`local_runs` finding. Acceptance against context comes from the run's context buckets.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.features.doctor.command import LOCAL_TOKENS, MAX_LOCAL_TOKENS
from specview.features.doctor.finding import HIGH, OK, DoctorFinding, Evidence, told
from specview.features.doctor.observe import Observation
from specview.features.doctor.probe import PROMPTS
from specview.features.watch.model import POSITIONS, Scrape, WatchSample

if TYPE_CHECKING:
    from specview.kernel.metrics_snapshot import MetricsSnapshot
    from specview.kernel.runspec import RunSpec

ENGINE = "local"


@dataclass(frozen=True, slots=True)
class LocalRun:
    """One run's metrics and its wall time."""

    snap: MetricsSnapshot
    wall_s: float


def local_spec(args: argparse.Namespace) -> RunSpec:
    """The RunSpec the spec flags describe, bounded for doctor (its own prompt when none is given)."""
    from specview.cli.runspec_args import spec_from_args
    from specview.kernel.errors import CliError

    if args.urls or args.targets is not None or args.prometheus is not None or args.off is not None:
        raise CliError("doctor.local.with_servers")
    spec = spec_from_args(args, speed=0.0)
    tokens = min(spec.max_tokens or LOCAL_TOKENS, MAX_LOCAL_TOKENS)
    return replace(spec, max_tokens=tokens, prompt=spec.prompt if args.prompt else PROMPTS[1])


def run_local(spec: RunSpec) -> LocalRun:
    """One headless run to its end, as `bench` runs it."""
    from specview.backends.factory import make_backend
    from specview.kernel.session import Session

    backend = make_backend(spec)
    session = Session(backend)
    started = time.monotonic()
    for _ in session.run_headless(None):
        pass
    return LocalRun(session.metrics.snapshot(), time.monotonic() - started)


def examine(args: argparse.Namespace) -> tuple[Observation, list[DoctorFinding]]:
    """The vocabulary check, then the two runs, then the findings."""
    from specview.backends.local.run_options import llama_options
    from specview.features.doctor.rules import diagnose
    from specview.features.doctor.verification import vocab_local

    spec = local_spec(args)
    own = llama_options(spec)
    target, draft = own.target or "", own.draft or "ngram"
    name = _name(target, draft, spec.plain)
    model_draft = next((p for p in draft.split(",") if p != "ngram"), None)
    if model_draft is not None and not spec.plain:
        from specview.backends.local.gguf_vocab import vocab_difference

        why = vocab_difference(target, model_draft)
        if why is not None:
            obs = Observation(name, ENGINE, _method(draft), spec.gamma, True, 0.0, local=True)
            return obs, [vocab_local(why, _file(target), _file(model_draft))]
    spec_run = run_local(spec)
    plain_run = spec_run if spec.plain else run_local(replace(spec, plain=True, tree=None, gamma_auto=False))
    obs = observation(name, draft, spec, spec_run, plain_run)
    found = diagnose(obs)
    found.insert(1 if found else 0, runs_finding(spec_run, plain_run))
    return obs, found


def observation(name: str, draft: str, spec: RunSpec, run: LocalRun, plain: LocalRun) -> Observation:
    """Doctor's window from the speculative run's metrics (see the module docstring)."""
    snap = run.snap
    drafts = sum(n for g, n in snap.gamma_counts if g > 0)
    per_position = tuple(round((a or 0.0) * v) for a, v in zip(snap.per_position_acceptance,
                                                                  snap.per_position_verified, strict=False))
    elapsed = snap.elapsed_s or run.wall_s
    first = Scrape(0.0, 0, 0, 0, (), tokens=0)
    last = Scrape(elapsed, drafts, snap.drafted, snap.accepted, per_position, tokens=snap.tokens)
    totals = WatchSample(elapsed, elapsed, drafts, snap.drafted, snap.accepted, per_position, snap.tokens, 1.0,
                         verified=snap.verified, verified_basis=POSITIONS)
    gamma = spec.gamma or max((g for g, n in snap.gamma_counts if n > 0), default=None) or None
    obs = Observation(name, ENGINE, None if spec.plain else _method(draft), gamma, not spec.plain, elapsed,
                      first=first, last=last, totals=totals, samples=snap.rounds, tokens_source=told("local_tokens"),
                      context=snap.context, local=True)
    if not spec.plain and snap.tokens_per_second and plain.snap.tokens_per_second:
        obs.speed_on, obs.speed_on_source = snap.tokens_per_second, told("spec_run", tokens=snap.tokens)
        obs.baseline_tps = plain.snap.tokens_per_second
        obs.baseline_source = told("plain_run", tokens=plain.snap.tokens)
    return obs


def runs_finding(run: LocalRun, plain: LocalRun) -> DoctorFinding:
    """What was run, and the loop's own calibrated plain step beside the plain run."""
    from specview.kernel.overlay import overlay

    over = overlay(run.snap)
    snap = run.snap
    evidence = (Evidence("tokens_per_s_spec", snap.tokens_per_second, told("spec_run", tokens=snap.tokens)),
                Evidence("tokens_per_s_plain", plain.snap.tokens_per_second,
                         told("plain_run", tokens=plain.snap.tokens)),
                Evidence("plain_tokens_per_s_calibrated", over.plain_tokens_per_second, told("calibrated")),
                Evidence("speedup_calibrated", over.speedup_measured, told("speedup_calibrated")),
                Evidence("c_measured", snap.draft_cost, told("draft_cost")))
    return DoctorFinding("local_runs", OK, HIGH, "baseline_local", {
        "tokens": snap.tokens, "spec": _f(snap.tokens_per_second), "plain_tokens": plain.snap.tokens,
        "plain": _f(plain.snap.tokens_per_second), "calibrated": _f(over.plain_tokens_per_second)}, evidence)


def _f(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _file(path: str) -> str:
    return sanitize(Path(path).name, MAX_SHOWN, one_line=True)


def _name(target: str, draft: str, plain: bool) -> str:
    drafts = [p if p == "ngram" else _file(p) for p in draft.split(",")]
    return _file(target) if plain else f"{_file(target)} + {' + '.join(drafts)}"


def _method(draft: str) -> str:
    parts = ["n-gram" if p == "ngram" else "draft model" for p in draft.split(",")]
    return " + ".join(parts)
