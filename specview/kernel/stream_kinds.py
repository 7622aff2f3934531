"""The one dispatch on a stream item's type: what each kind of item a backend yields is to its readers.

A backend yields Rounds and, between them, what it says besides (events.py's `StreamItem`). Every
reader that treats them differently asks KINDS, keyed by the item's type: how a fold takes it
(`StreamFold`: the session and the metrics), how many tokens it puts in the session's buffer
(what back-pressure counts), whether a single step lets it through like a round, what the
secret masker does with it, how a recording writes and reads it (`Recorded`: its line's type word,
the format version that introduced it, its decoder; None for what is never recorded), and which
round a replay paces it by. A new kind of item is one entry here (a test checks every `StreamItem`
type has one, with every column). Rounds are nearly every item: the hot paths test
`type(item) is Round` first and come here for the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from specview.boundary.stream_mask import RoundMasker, mask_rounds
from specview.kernel.events import Calibration, Reconcile, Round, StreamItem
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.totals import CrossChecked, Totals

Item = TypeVar("Item")


class StreamFold(Protocol):
    """What folds a backend's stream: one method per kind of item."""

    def add_round(self, rnd: Round) -> None: ...

    def reconcile(self, item: Reconcile) -> None: ...

    def calibrate(self, cal: Calibration) -> None: ...

    def close_request(self, totals: Totals) -> None: ...

    def cross_checked(self, item: CrossChecked) -> None: ...

    def gamma_chosen(self, item: GammaChoice) -> None: ...


@dataclass(frozen=True, slots=True)
class Recorded(Generic[Item]):
    """How a recording (features/record/recording.py) holds one kind of item: a line
    `{"type": word, **item.to_dict()}`, read back by `decode` in files of version `since` on."""

    word: str  # the line's "type"
    since: int  # the recording format version that introduced the line
    decode: Callable[[Any], Item]  # the item from the line's object (Invalid naming the field when it is not)


@dataclass(frozen=True, slots=True)
class ItemKind(Generic[Item]):
    """What one kind of stream item is to its readers."""

    fold: Callable[[StreamFold, Item], None]  # hand it to the fold's method for its kind
    tokens: Callable[[Item], int]  # what it puts in the buffer: shown, drafted and lost tokens
    mask: Callable[[RoundMasker, Item], list[StreamItem]]  # what to deliver once secrets are masked
    stepped: bool  # a single step lets one through (it shows tokens); the rest pass between steps
    recorded: Recorded[Item] | None  # its line in a recording; None: not recorded (a replay decides nothing)
    paced_by: Callable[[Item], Round | None]  # the round whose recorded time a replay waits for (None: at once)


def round_tokens(rnd: Round) -> int:
    """A round's tokens in the buffer: shown, drafted and lost."""
    return len(rnd.tokens) + len(rnd.discarded) + len(rnd.lost)


def _no_tokens(_item: object) -> int:
    return 0


def _as_is(_masker: RoundMasker, item: StreamItem) -> list[StreamItem]:
    """No text: through at once."""
    return [item]


def _after_held(masker: RoundMasker, item: StreamItem) -> list[StreamItem]:
    """It closes the rounds before it (a request's totals): the held rounds go first."""
    return [*masker.flush(), item]


def _unpaced(_item: object) -> None:
    """No time of its own: a replay passes it on at once."""


def _itself(rnd: Round) -> Round:
    return rnd


def _mask_round(masker: RoundMasker, rnd: Round) -> list[StreamItem]:
    return list(masker.feed(rnd))


def _mask_reconcile(masker: RoundMasker, item: Reconcile) -> list[StreamItem]:
    """The held rounds first (a reconcile closes them), then its own rounds masked."""
    return [*masker.flush(), Reconcile(item.first_index, tuple(mask_rounds(list(item.rounds), masker.pattern)))]


# each entry declared with its type, so that mypy checks its fold, mask and decoder take that kind of item
_ROUND: ItemKind[Round] = ItemKind(lambda fold, rnd: fold.add_round(rnd), round_tokens, _mask_round, stepped=True,
                                   recorded=Recorded("round", 1, Round.from_dict), paced_by=_itself)
_RECONCILE: ItemKind[Reconcile] = ItemKind(lambda fold, item: fold.reconcile(item),
                                           lambda item: sum(map(round_tokens, item.rounds)), _mask_reconcile,
                                           stepped=True, recorded=Recorded("reconcile", 2, Reconcile.from_dict),
                                           paced_by=_unpaced)
_CALIBRATION: ItemKind[Calibration] = ItemKind(lambda fold, cal: fold.calibrate(cal), _no_tokens, _as_is,
                                               stepped=False,
                                               recorded=Recorded("calibration", 3, Calibration.from_dict),
                                               paced_by=_unpaced)
_TOTALS: ItemKind[Totals] = ItemKind(lambda fold, totals: fold.close_request(totals), _no_tokens, _after_held,
                                     stepped=False, recorded=Recorded("totals", 4, Totals.from_dict), paced_by=_unpaced)
_CROSS_CHECKED: ItemKind[CrossChecked] = ItemKind(lambda fold, item: fold.cross_checked(item), _no_tokens, _as_is,
                                                  stepped=False, recorded=Recorded("check", 4, CrossChecked.from_dict),
                                                  paced_by=_unpaced)
# `--gamma auto`'s live decision: its rounds record the γ it ran, a replay decides nothing
_GAMMA_CHOICE: ItemKind[GammaChoice] = ItemKind(lambda fold, item: fold.gamma_chosen(item), _no_tokens, _as_is,
                                                stepped=False, recorded=None, paced_by=_unpaced)
KINDS: dict[type, ItemKind[Any]] = {Round: _ROUND, Reconcile: _RECONCILE, Calibration: _CALIBRATION,
                                    Totals: _TOTALS, CrossChecked: _CROSS_CHECKED, GammaChoice: _GAMMA_CHOICE}
# a recording's line type → its kind's record (recording.py reads by it)
RECORDED: dict[str, Recorded[Any]] = {kind.recorded.word: kind.recorded for kind in KINDS.values() if kind.recorded}


def kind_of(item: StreamItem) -> ItemKind[Any]:
    """The entry for `item`'s type; a TypeError naming it for anything that is not a stream item."""
    try:
        return KINDS[type(item)]
    except KeyError:
        raise TypeError(f"not a stream item: {type(item).__name__}") from None


def fold_item(fold: StreamFold, item: StreamItem) -> None:
    """Hand `item` to the method of `fold` for its kind."""
    kind_of(item).fold(fold, item)


def item_tokens(item: StreamItem) -> int:
    """The tokens `item` puts in the session's buffer (what back-pressure counts)."""
    if type(item) is Round:  # nearly every item is one: no lookup, no call (round_tokens, written out)
        return len(item.tokens) + len(item.discarded) + len(item.lost)
    return kind_of(item).tokens(item)
