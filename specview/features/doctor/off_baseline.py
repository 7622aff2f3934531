"""`specview doctor URL --off PLAIN_URL`: the measured "does it pay", with a plain server as baseline.

The same probes (probe.py: the same prompts, tokens and temperature, each with its deadline, at
most PROBE_WORKERS in flight) go to the server under examination (during its window: observe.py)
and then to the `--off` server: a server of the same model without speculation. One after the
other, never both at once, so two servers on one machine do not slow each other down. The
speedup is the mean decode speed on one ÷ the mean on the other, by the servers' own timings
(llama-server's `timings.predicted_ms`) where every probe on both has them, else by wall-clock
tokens per second on both (the same basis on both sides, said in the evidence).

An `--off` server that speculates (detection says so, or a probe's timings count drafts) is no
baseline: refused, one line, exit 2, as `bench --baseline-url` refuses one.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

from specview.backends.remote.client import Connection
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.api_key import ApiKey
from specview.boundary.secrets import public_url
from specview.features.doctor.finding import told
from specview.features.doctor.observe import PROBE_WORKERS, Observation, probe_deadline
from specview.features.doctor.probe import ProbeResult, probe_once
from specview.features.watch.source import ServerWatch
from specview.kernel.errors import CliError
from specview.texts.catalog import Phrase

DEFAULT_OFF_PROBES = 4  # probes on each side when --off is given without --probe
TIMINGS, WALL = "server timings", "wall clock"
_SAID = {TIMINGS: "timing.timings", WALL: "timing.wall"}  # the basis in the evidence, in words


@dataclass(frozen=True, slots=True)
class Speed:
    """The mean tokens/s of some probes, on one basis, and how many probes it rests on."""

    tokens_per_s: float
    basis: str
    probes: int


def speed(probes: list[ProbeResult], basis: str) -> Speed | None:
    """The probes' mean tokens/s on `basis` (TIMINGS: the server's decode time; WALL: the whole request)."""
    if basis == TIMINGS:
        rates = [p.tokens_per_s for p in probes if p.tokens_per_s is not None]
    else:
        rates = [p.tokens / p.wall_s for p in probes if p.tokens and p.wall_s and p.error is None]
    return Speed(sum(rates) / len(rates), basis, len(rates)) if rates else None


def basis_of(on: list[ProbeResult], off: list[ProbeResult]) -> str:
    """Server timings where every answered probe on both sides has them, else the wall clock."""
    answered = [p for p in (*on, *off) if p.error is None]
    return TIMINGS if answered and all(p.tokens_per_s is not None for p in answered) else WALL


def probe_off(url: str, n: int, *, api_key: ApiKey | None, key_env: str | None, server: str | None,
              timeouts: Timeouts, window_s: float) -> list[ProbeResult]:
    """`n` probes on the plain server, bounded as the window's are; CliError when it speculates."""
    shown = public_url(url) or url
    watch = ServerWatch(url, api_key, key_env, server, timeouts)
    try:
        watch.describe()
        if watch.facts.speculating:
            raise CliError("doctor.off.speculates", url=shown, method=watch.facts.method or watch.kind.id)
    finally:
        watch.close()
    conn = Connection(url, api_key, key_env, timeouts)
    deadline = probe_deadline(timeouts, window_s)
    pool = ThreadPoolExecutor(max_workers=PROBE_WORKERS, thread_name_prefix="specview-doctor-off")
    try:
        pending = [pool.submit(probe_once, conn, k, deadline, None) for k in range(n)]
        wait(pending, timeout=deadline + 5.0)
        found = [f.result() for f in pending if f.done()]
        found += [ProbeResult(error=Phrase("doctor.probe.late")) for f in pending if not f.done()]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        conn.interrupt()
        conn.close()
    drafted = sum(p.drafted or 0 for p in found)
    if drafted:
        raise CliError("doctor.off.drafted", url=shown, drafted=drafted)
    return found


def apply(obs: Observation, off: list[ProbeResult], off_url: str) -> None:
    """The measured speeds on both sides into `obs` (nothing where either side has no answer)."""
    basis = basis_of(obs.probes, off)
    on_speed, off_speed = speed(obs.probes, basis), speed(off, basis)
    shown = public_url(off_url) or off_url
    if on_speed is None or off_speed is None:
        failed = next((p.error for p in off if p.error is not None), None)
        if off_speed is None:
            obs.errors.append(Phrase("doctor.off.no_answer", url=shown, what=failed or "—"))
        return
    said = told(_SAID[basis])
    obs.speed_on, obs.speed_on_source = on_speed.tokens_per_s, told("probes_here", n=on_speed.probes, basis=said)
    obs.baseline_tps = off_speed.tokens_per_s
    obs.baseline_source = told("probes_off", n=off_speed.probes, url=shown, basis=said)
