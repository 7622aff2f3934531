"""Doctor's Observation from what a watch already has: no request, no scrape of its own.

The doctor screen (screen.py) is opened from `watch` and from the fleet's instance view; its findings
come from the same rules as `specview doctor` (rules.py), fed with the readings the opener holds:
- `from_watch`: the watch's WatchModel (its first and latest scrapes, its totals since watching
  began, the counter invariants it broke) and the server's kind and facts (detection's);
- `from_row`: one fleet row (a Prometheus instance): the fleet's last window, without cumulative
  scrapes (so no "drafted since it started" and no generated-token count of its own).
"""

from __future__ import annotations

from specview.backends.remote.registry import kind_by_id
from specview.boundary.secrets import public_url
from specview.features.doctor.observe import Observation, set_aside_of
from specview.features.watch.model import WatchModel
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.fleet import InstanceRow
from specview.kernel.backend import Note


def from_watch(url: str, engine: str, method: str | None, gamma: int | None, speculating: bool,
               model: WatchModel, samples: int, by_load: LoadTable | None = None,
               notes: tuple[Note, ...] = ()) -> Observation:
    """The watch's readings since it began, as doctor's window."""
    shown = public_url(url) or url
    kind = kind_by_id(engine)
    totals = model.totals()
    obs = Observation(shown, engine, method, gamma, speculating, max(totals.dt, 0.0), first=model.first,
                      last=model.last, totals=totals, samples=samples,
                      prefix=kind.metrics_prefix if kind else None, tokens_source=kind.tokens_counter if kind else None)
    obs.set_aside = set_aside_of(model.violations, shown)
    obs.by_load, obs.notes = by_load, tuple(n.id for n in notes)
    return obs


def from_row(row: InstanceRow, window_s: float) -> Observation:
    """The fleet's last window of one instance, as doctor's window."""
    kind = kind_by_id(row.engine or "")
    window = row.window
    speculating = row.method is not None or (window is not None and window.draft_tokens > 0)
    obs = Observation(row.instance, row.engine or "generic", row.method, row.gamma, speculating, window_s,
                      totals=window, samples=len([a for a in row.alpha_history if a is not None]),
                      prefix=kind.metrics_prefix if kind else None, tokens_source=kind.tokens_counter if kind else None)
    if window is not None:
        obs.set_aside = set_aside_of(window.violations, row.instance)
    obs.by_load, obs.notes = row.by_load, tuple(n.id for n in row.notes)
    return obs
