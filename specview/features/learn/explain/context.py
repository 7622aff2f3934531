"""What a running decoder hands the Learn screens: its measured numbers, its model, a round, a token."""

from __future__ import annotations

from dataclasses import dataclass, field

from specview.kernel.backend import Origin
from specview.kernel.events import Round, TokenEvent


@dataclass(frozen=True, slots=True)
class TokenRows:
    """One position's top tokens under the target (p) and the draft (q), and the exact overlap.

    `labels`, `p` and `q` cover the union of both top-k lists plus one "other" bucket holding the
    rest of each distribution; `alpha` and `tv` are over the full vocabulary.
    """

    labels: tuple[str, ...]
    p: tuple[float, ...]
    q: tuple[float, ...]
    alpha: float
    tv: float
    chosen: int  # index of the drafted token in labels


@dataclass(frozen=True, slots=True)
class RunContext:
    """A live run seen from the Learn screens (every field optional: each backend knows different things)."""

    backend: str = ""
    # where the run's numbers come from (the gauges' words: measured, simulated, recorded); None where
    # there is no run (a model file alone): a screen then says "assumed", never "measured"
    origin: Origin | None = None
    alpha: float | None = None
    gamma: int | None = None
    c: float | None = None
    tau: float | None = None
    per_position: tuple[float | None, ...] = ()
    verify_ratio: float | None = None  # v(γ) from the run's own calibration, when it measured one
    verify_costs_s: tuple[float, ...] = ()  # k-token forward seconds, k = 1…, at the run's live context
    tokens_per_second: float | None = None
    target_path: str | None = None
    last_round: Round | None = None
    before_round: tuple[str, ...] = field(default=())  # texts of the tokens just before last_round
    token: TokenEvent | None = None
    token_rows: TokenRows | None = None
    fill: bool = False  # open with these numbers already filled in (the speedup lesson from the live view)
