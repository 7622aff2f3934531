"""TokenEvent and Round built without their frozen `__init__`, for the paths that make millions.

A frozen dataclass's `__init__` sets each field through `object.__setattr__` (a global lookup
and a call per field); writing the slots through their descriptors makes the same object in
about half the time. The simulator flat out builds every token with these, and the UI decodes
the child process's rounds with them (backends/process.py's pipe): there a token's decoding is
most of the UI thread's cost per token that is not drawing. The objects are equal to, and behave as,
those the classes' own constructors make (tests/unit/kernel/test_event_build.py); neither class has a
`__post_init__` to skip.
"""

from __future__ import annotations

from typing import Any

from specview.kernel.events import Round, TokenEvent, TokenStatus

_new = object.__new__


def _setter(cls: type, name: str) -> Any:
    return cls.__dict__[name].__set__  # the slot's member descriptor: bypasses the frozen __setattr__


TOKEN_FIELDS = ("token_id", "text", "status", "position", "p", "q", "inferred", "u", "residual", "residual_p",
                "q_rank")
ROUND_FIELDS = ("index", "drafted", "tokens", "t_draft_s", "t_verify_s", "t_wall", "discarded", "drafter", "lost",
                "q_top", "lost_from")
(_t_id, _t_text, _t_status, _t_position, _t_p, _t_q, _t_inferred, _t_u, _t_residual, _t_residual_p,
 _t_q_rank) = (_setter(TokenEvent, name) for name in TOKEN_FIELDS)
(_r_index, _r_drafted, _r_tokens, _r_draft, _r_verify, _r_wall, _r_discarded, _r_drafter, _r_lost, _r_q_top,
 _r_lost_from) = (_setter(Round, name) for name in ROUND_FIELDS)


def token_event(token_id: int | None, text: str, status: TokenStatus, position: int | None = None,
                p: float | None = None, q: float | None = None, inferred: bool = False, u: float | None = None,
                residual: float | None = None, residual_p: float | None = None,
                q_rank: int | None = None) -> TokenEvent:
    """`TokenEvent(...)`, with the same arguments in the same order."""
    t = _new(TokenEvent)
    _t_id(t, token_id)
    _t_text(t, text)
    _t_status(t, status)
    _t_position(t, position)
    _t_p(t, p)
    _t_q(t, q)
    _t_inferred(t, inferred)
    _t_u(t, u)
    _t_residual(t, residual)
    _t_residual_p(t, residual_p)
    _t_q_rank(t, q_rank)
    return t


def round_event(index: int, drafted: int, tokens: tuple[TokenEvent, ...], t_draft_s: float | None,
                t_verify_s: float | None, t_wall: float, discarded: tuple[TokenEvent, ...] = (), drafter: str = "",
                lost: tuple[TokenEvent, ...] = (), q_top: tuple[tuple[int, ...], ...] = (),
                lost_from: tuple[int, ...] = ()) -> Round:
    """`Round(...)`, with the same arguments in the same order."""
    r = _new(Round)
    _r_index(r, index)
    _r_drafted(r, drafted)
    _r_tokens(r, tokens)
    _r_draft(r, t_draft_s)
    _r_verify(r, t_verify_s)
    _r_wall(r, t_wall)
    _r_discarded(r, discarded)
    _r_drafter(r, drafter)
    _r_lost(r, lost)
    _r_q_top(r, q_top)
    _r_lost_from(r, lost_from)
    return r
