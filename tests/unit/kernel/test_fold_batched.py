"""The batched fold (Metrics.add_rounds, Session.drain folding rounds in a row together) gives the
same snapshot and the same history as the per-round fold it replaced, on thousands of simulator
rounds with calibrations, a request's totals and a history trimmed in chunks between them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace

from specview.backends.factory import make_backend
from specview.kernel.backend import BackendInfo, BackendKind
from specview.kernel.events import Basis, Calibration, Round, StreamItem, TokenEvent, TokenStatus
from specview.kernel.lost_branches import with_branches
from specview.kernel.lost_from import BELOW_REJECTED, ON_PATH
from specview.kernel.metrics import Metrics
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Drained, Session
from specview.kernel.totals import Totals
from specview.report.display_order import displayed, drawable


def _old_add(m: Metrics, rnd: Round) -> None:
    """Metrics.add for a round as it was before the batched fold (the reference)."""
    emitted = accepted = 0
    for token in rnd.tokens:
        if token.status is not TokenStatus.REJECTED:
            emitted += 1
            accepted += token.status is TokenStatus.ACCEPTED
    drafted = rnd.drafted
    m.rounds += 1
    m.tokens += emitted
    m.drafted += drafted
    m.accepted += accepted
    m._gamma_counts[drafted] = m._gamma_counts.get(drafted, 0) + 1
    verified = min(accepted + 1, drafted)
    m.verified += verified
    if len(m._verified_at) < drafted:
        grow = drafted - len(m._verified_at)
        m._verified_at.extend([0] * grow)
        m._accepted_at.extend([0] * grow)
    for k in range(verified):
        m._verified_at[k] += 1
    for k in range(min(accepted, drafted)):
        m._accepted_at[k] += 1
    m.context.add(emitted, drafted, verified, accepted)
    m.drafters.add(rnd.drafter, emitted, drafted, verified, accepted)
    m._gamma_history.append(drafted)
    if rnd.q_top:
        m._tree_nodes.add(rnd)
        m._what_if.add(rnd)
    if not (rnd.drafted or m._t_last is None or len(rnd.tokens) != 1):
        token = rnd.tokens[0]
        if token.status is TokenStatus.PLAIN and not token.inferred:
            m._plain_round_times.add(max(0.0, rnd.t_wall - m._t_last))
    m._add_timing(rnd, emitted)
    if len(m._window) == m._window.maxlen:
        _, old_e, old_v, old_a = m._window[0]
        m._win_tokens -= old_e
        m._win_verified -= old_v
        m._win_accepted -= old_a
    m._window.append((rnd.t_wall, emitted, verified, accepted))
    m._win_tokens += emitted
    m._win_verified += verified
    m._win_accepted += accepted
    m._tau_history.append(m._win_tokens / len(m._window))
    if m._win_verified > 0:
        m._alpha_history.append(m._win_accepted / m._win_verified)


def _stream() -> list[StreamItem]:
    """Four presets' rounds one after another, plain rounds (a mixture), a calibration and a
    request's totals between them, and rounds that name a drafter."""
    items: list[StreamItem] = []
    for preset in ("qwen3.6-mtp", "glm-5.2-mtp", "eagle3", "deepseek-v3-mtp", "ngram"):
        backend = make_backend(RunSpec(preset=preset, seed=2, speed=0.0, max_rounds=800))
        items += list(backend.rounds(threading.Event()))
        items.append(Totals(drafted=900, accepted=700, tokens=1500))
    base = len([i for i in items if isinstance(i, Round)])
    plain = TokenEvent(5, "x", TokenStatus.PLAIN)
    items += [Round(base + i, 0, (plain,), None, 0.01, 100.0 + 0.01 * i, drafter="") for i in range(40)]
    items += [replace(r, drafter="ngram") for r in items[:300] if isinstance(r, Round)]
    items.insert(500, Calibration(Basis.ASSUMED, 0.02, (0.02, 0.03)))
    return items


def test_add_rounds_is_the_per_round_fold() -> None:
    items = _stream()
    old, new = Metrics(window=32), Metrics(window=32)
    run: list[Round] = []
    for item in items:
        if isinstance(item, Round):
            _old_add(old, item)
            run.append(item)
            continue
        new.add_rounds(run)
        run = []
        old.add(item)
        new.add(item)
    new.add_rounds(run)
    assert new.snapshot() == old.snapshot()
    assert new.snapshot().rounds > 4000


class _Listed:
    def __init__(self, items: list[StreamItem]) -> None:
        self.items = items
        self.info = BackendInfo(backend=BackendKind.SIM, label="listed", gamma=None, temperature=1.0,
                                virtual_clock=True)

    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]:
        yield from self.items

    def close(self) -> None:
        pass


def _drained(items: list[StreamItem], limit: int | None, keep: int) -> Session:
    session = Session(_Listed(items), buffer_tokens=10**9, keep_rounds=keep)  # type: ignore[arg-type]
    session._produce()  # fills the buffer on this thread
    while session.drain(limit).rounds or session._buffer:
        pass
    return session


def test_a_drain_of_many_rounds_is_the_drains_of_one() -> None:
    items = _stream()
    for keep in (0, 1, 7, 100):
        one = _drained(items, 1, keep)
        many = _drained(items, None, keep)
        some = _drained(items, 37, keep)
        assert many.metrics.snapshot() == one.metrics.snapshot() == some.metrics.snapshot()
        assert many.history == one.history == some.history
        assert many.dropped_rounds == one.dropped_rounds == some.dropped_rounds
    # the per-round trim the history follows: back to `keep` whenever a round makes it pass 5/4 of it
    rounds = [i for i in items if isinstance(i, Round)]
    history: list[Round] = []
    dropped = 0
    for r in rounds:
        history.append(r)
        if len(history) > 100 * 5 // 4:
            dropped += len(history) - 100
            del history[:len(history) - 100]
    assert (many.history, many.dropped_rounds) == (history, dropped)


def _one_round_shown(rnd: Round) -> list[TokenEvent]:
    """The stream's order for one round, spelled out (the reference): a tree round with its lost
    branches in place, else the discarded drafts right after the rejected token."""
    if rnd.lost:
        return with_branches(rnd)
    out: list[TokenEvent] = []
    for token in rnd.tokens:
        out.append(token)
        if token.status is TokenStatus.REJECTED:
            out.extend(rnd.discarded)
    return out


def _tree_rounds() -> list[Round]:
    """Tree rounds whose branches lost on the path, below the rejected token, and from early on."""
    t = TokenEvent
    A, R, C, B, D = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
                     TokenStatus.DISCARDED)
    q_top = ((1, 2, 3), (4, 5, 6))
    return [
        Round(0, 2, (t(1, "s1", A, 0, 0.1, 0.2), t(4, "s2", R, 1, 0.1, 0.2), t(9, "z", C, 1)), None, None, 0.0,
              lost=(t(2, "x1", R, 0, 0.1, 0.2), t(5, "x2", R, 1, 0.1, 0.2)), q_top=q_top,
              lost_from=(ON_PATH, ON_PATH)),
        Round(1, 2, (t(1, "s1", R, 0, 0.1, 0.2), t(9, "z", C, 0)), None, None, 0.0,
              lost=(t(2, "x1", R, 0, 0.1, 0.2), t(4, "s2", D, 1, None, 0.2)), q_top=q_top,
              lost_from=(ON_PATH, BELOW_REJECTED)),
        Round(2, 2, (t(2, "x1", A, 0, 0.1, 0.2), t(8, "b", B, 1)), None, None, 0.0,
              lost=(t(1, "s1", R, 0, 0.1, 0.2), t(4, "s2", D, 1, None, 0.2)), q_top=q_top, lost_from=(ON_PATH, 0)),
    ]


def test_what_a_view_draws_is_each_rounds_order_in_the_stream() -> None:
    """The shortcut for rounds shown as they are (their tokens as they are) and the rounds that need reordering
    give the stream's order, mixed in one drain: plain, accepted, corrected, bonus, rejected with
    discarded drafts, tree rounds with lost branches."""
    rounds = [i for i in _stream() if isinstance(i, Round)]
    trees = _tree_rounds()
    plain = [r for r in rounds if not r.drafted][:20]
    mixed = [*rounds[:50], trees[0], *plain, trees[1], trees[2], *rounds[3000:3100]]
    statuses = {tok.status for r in mixed for tok in r.tokens}
    assert {TokenStatus.PLAIN, TokenStatus.ACCEPTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
            TokenStatus.REJECTED} <= statuses
    assert any(r.discarded for r in mixed) and any(not (r.discarded or r.lost) for r in mixed)
    expected = [tok for r in mixed for tok in _one_round_shown(r)]
    assert any(tok.status is TokenStatus.LOST for tok in expected)
    session = Session(_Listed([]))  # type: ignore[arg-type]
    assert drawable(session.history, Drained(mixed, None, False)) == (False, expected)
    assert displayed(mixed, lost=True) == expected == [tok for r in mixed for tok in displayed((r,), lost=True)]
    # without `lost` (the report): a tree round shows its path only
    assert displayed(trees) == [tok for r in trees for tok in r.tokens]


def test_the_buffer_counts_a_reconciled_round_as_the_round_itself() -> None:
    """Back-pressure counts a round's shown, discarded and lost tokens, inside a reconcile too."""
    from specview.kernel.events import Reconcile
    from specview.kernel.stream_kinds import item_tokens

    tree = _tree_rounds()[1]  # a rejection, a lost branch below it
    assert item_tokens(tree) == len(tree.tokens) + len(tree.lost) > len(tree.tokens)
    assert item_tokens(Reconcile(0, (tree, tree))) == 2 * item_tokens(tree)
