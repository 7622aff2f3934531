"""A kept calibration for tests that follow a measured one through the app, on a machine that is busy.

A calibration whose timings disagree (kernel/contended.py) is set aside by the run's metrics, as it
should be; on a machine shared with a second test worker that can be every calibration of a short
run. A test that checks where the kept numbers go (Learn 2 and 10, the gauges) then folds in the
run's own last calibration made steady: each k-token cost its median, repeated, never below the
1-token cost. The numbers stay the run's; only the disturbance the detector rightly refused is gone.
"""

from __future__ import annotations

from specview.kernel.calibration import Calibration
from specview.kernel.session import Session

REPEATS = 3


def keep_a_calibration(session: Session) -> bool:
    """Fold a steady copy of the run's last calibration in when every one was set aside; True if it did."""
    snapshot = session.metrics.snapshot()
    kept = snapshot.calibration
    if kept is not None and kept.verify_costs_s:
        return False
    assert snapshot.calibrations_set_aside > 0, "no calibration kept, and none set aside: nothing was measured"
    last = session.calibrations[-1]
    assert last.plain_s is not None and last.verify_costs_s
    first = last.verify_costs_s[0]
    costs = [max(cost, first) for cost in last.verify_costs_s]
    steady = Calibration.timed([last.plain_s] * REPEATS, [[cost] * REPEATS for cost in costs],
                               context=last.context)
    session.metrics.calibrate(steady)
    return True
