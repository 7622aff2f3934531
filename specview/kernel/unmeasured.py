"""Why a number is "—": the engine does not give what it rests on.

A remote server (and a recording of one) streams tokens and counts, but times neither its
drafting nor its target forwards: c and v(k) are not known there, nor is any theory that needs
them (the speedup τ / (γc + v), the best γ). Nor does such a server always draft the γ asked:
`server_gamma` reports the one it drafted, with a note. They are shown as "—" with the reason, never as 0
or an assumed 1: the gauge table states the reason beside the value (kernel/gauges.py), `bench
--json` gives null and the reason (`not_measured`, report/run_json.py).
"""

from __future__ import annotations

from dataclasses import replace

from specview.kernel.backend import BackendInfo, Exact, Note
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.kernel.overlay import Overlay

REMOTE_C = "measured.why.remote_c"  # catalog ids (texts/measured.<lang>.toml)
REMOTE_V = "measured.why.remote_v"
REMOTE_THEORY = "measured.why.remote_theory"
GAMMA_SERVER = "gamma_server"  # note ids (`note.<id>`): the server drafted more than asked
GAMMA_SHORTER = "gamma_shorter"  # ... or at most less
GAMMA_NOTES = (GAMMA_SERVER, GAMMA_SHORTER)
TEXT_CUT_NOTE = "text_cut"  # backends/remote/text_budget.py's note: token text a request could not keep


def untimed(info: BackendInfo, snap: MetricsSnapshot) -> bool:
    """Whether the run's engine times neither drafting nor its forwards: it does not report c
    (a local run does) and its rounds came without a calibration that gave verify costs (the
    simulator's, and a replay's of it, comes before its first round: before any round nothing
    tells a simulator from a server, and every number is "—" anyway)."""
    cal = snap.calibration
    return (info.exact.get(Exact.DRAFT_COST) is None and snap.rounds > 0
            and (cal is None or not cal.verify_costs_s))


def why_missing(info: BackendInfo, snap: MetricsSnapshot, over: Overlay) -> dict[str, str]:
    """The numbers this run's engine cannot give, by their `bench --json` key, each with the
    catalog id of the reason (empty for a run that times its own costs)."""
    if not untimed(info, snap):
        return {}
    out: dict[str, str] = {}
    if snap.draft_cost is None:
        out["draft_cost"] = REMOTE_C
    if over.verify_ratio is None:
        out["verify_ratio"] = out["verify_cost"] = REMOTE_V
    if over.speedup_theory is None:
        out["speedup_theory"] = out["best_gamma"] = REMOTE_THEORY
    return out


def server_gamma(info: BackendInfo, drafted: int, asked: int | None) -> BackendInfo:
    """`info` with the γ the engine drafted (its longest draft) where it differs from the one asked,
    and a note that says whose it is: a longer draft than asked means the server chose its own
    draft max (llama-server reads --spec-draft-n-max, not the request's speculative.n_max); a
    shorter one only that it drafted no more."""
    notes = tuple(n for n in info.notes if n.id not in GAMMA_NOTES)
    if asked is None or drafted == asked:
        return replace(info, gamma=drafted, gamma_asked=None, notes=notes)
    note = Note(GAMMA_SERVER if drafted > asked else GAMMA_SHORTER, {"server": str(drafted), "asked": str(asked)})
    return replace(info, gamma=drafted, gamma_asked=asked, notes=(*notes, note))
