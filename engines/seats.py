"""Seats on paper and the stalled phone: the mechanics every game shares.

Seats on paper. A seat without a phone keeps its secrets physical (a card in
front of its player, a paper sheet). Every state has ``paper: tuple[str, ...]``,
the seats whose secrets are held on paper for the rest of this game, and every
engine accepts the host's ``{"type": "set_paper", "seat": pid}`` (``set_paper``
below; the server sends it for a seat made phoneless, and right after
``setup`` for seats without a phone at the start). For a paper seat,
``legal_actions(state, pid)`` lists what is waiting to be entered for it (by
the host or another phone, with the public information only: a template must
never reveal what the seat chose while it still had a phone), and
``view(state, None)`` says which paper seat the game waits on.

The stalled phone. ``waiting(state)`` names the seats whose input the game needs
now before it can go on (a simultaneous phase's missing entries, or the seat
whose turn it is), from public information only; every view carries it as
``waiting``. The host has two tools besides ``set_paper``, both engine actions
every game accepts (and lists in ``legal_actions`` as templates marked
``"host": True`` only when they would be accepted):

- ``{"type": "set_phone", "seat": pid}``: a seat on paper goes back to its
  phone, unless a secret of it exists only on paper and the app would need it
  (a vote card lying face down...): then it is refused with one of the
  ``PAPER_UNTIL`` codes, which say when it will be possible; the views carry
  that per seat as ``paper_until``;
- ``{"type": "skip", "seat": pid}``: the game goes on without that seat's
  input, where the game's rules (or a table convention its docs/rules page
  names) say what its missing input counts as; else ``cannot_skip``, and
  ``not_waiting`` for a seat the game is not waiting for.

A game composes these: its ``HANDLERS`` take ``paper_handler`` /
``phone_handler`` (or wrap ``set_paper``), its stall module's ``hold`` and
``skip`` use ``paper_hold_error`` and ``skip_seat``, and its ``legal_actions``
adds ``seat_templates``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from engines.contract import Action, Event, Handler
from engines.errors import EngineError, refusal
from engines.history import Part, part
from engines.legality import Gate, Rule

#: The events a seat's move between phone and paper makes; every game's
#: history says them with the platform's ``history.<type>`` (``{name}``: the seat).
SEAT_EVENTS = frozenset({"paper_seat", "seat_phone"})


class PaperState(Protocol):
    """A state with seats on paper (every game's ``State``)."""

    @property
    def paper(self) -> tuple[str, ...]: ...


P = TypeVar("P", bound=PaperState)


def host_names_seat(action: Action, seats: Collection[str], why: str) -> str:
    """The checks every host-only seat action (``set_paper``, ``set_phone``,
    ``skip``) makes first: the host sent it (else ``not_host``, ``why`` its
    message) and it names a seat (``not_seated``). Returns the seat."""
    refused = seat_refusal(action, seats, why)
    if refused is not None:
        raise refused
    return str(action["seat"])


def seat_refusal(action: Action, seats: Collection[str], why: str) -> EngineError | None:
    """``host_names_seat``'s refusal, or None."""
    if action.get("host") is not True:
        return refusal("not_host", why)
    seat = action.get("seat")
    if not isinstance(seat, str) or seat not in seats:
        return refusal("not_seated", f"{seat!r} has no seat at this table.")
    return None


def set_paper(state: P, action: Action, seats: Collection[str]) -> tuple[P, list[Event]]:
    """The shared ``set_paper`` handler: the host marks ``action["seat"]`` as
    held on paper for the rest of this game. ``state`` must be a dataclass with
    a ``paper`` field. A game that must do more (e.g. stop waiting for a
    secret the seat will now keep on paper) wraps it.

    >>> @dataclasses.dataclass(frozen=True)
    ... class Toy:
    ...     paper: tuple[str, ...] = ()
    >>> set_paper(Toy(), {"seat": "p2", "host": True}, ["p1", "p2"])
    (Toy(paper=('p2',)), [{'type': 'paper_seat', 'seat': 'p2'}])
    >>> set_paper(Toy(("p2",)), {"seat": "p2", "host": True}, ["p1", "p2"])[0].paper
    Traceback (most recent call last):
    ...
    engines.errors.EngineError: p2 is already a seat on paper.
    """
    seat = host_names_seat(action, seats, "Only the host can take a seat's secrets onto paper.")
    paper = state.paper
    if seat in paper:
        raise refusal("bad_action", f"{seat} is already a seat on paper.")
    new = dataclasses.replace(state, paper=(*paper, seat))  # type: ignore[type-var]
    return new, [{"type": "paper_seat", "seat": seat}]


def paper_handler(seats: Callable[[P], Collection[str]]) -> Handler[P]:
    """``set_paper`` for a game whose seat ids ``seats(state)`` lists, ready
    for its dispatch table."""

    def handle(state: P, action: Action) -> tuple[P, list[Event]]:
        return set_paper(state, action, seats(state))

    return handle


#: The payload schemas of ``set_phone`` and ``skip`` (every game's ``action_schemas``

#: Why ``set_phone`` is refused for now (a secret of the seat exists only on
#: paper), by code, and when it becomes possible: the views' ``paper_until``.
PAPER_UNTIL: dict[str, str] = {
    "paper_until_reveal": "reveal",
    "paper_until_round_end": "round_end",
    "paper_until_game_end": "game_end",
}


#: Whether a seat on paper must stay on paper for now: None, or the refusal
#: (its code one of ``PAPER_UNTIL``'s) that says why and until when.
PaperHold = Callable[[P, str], EngineError | None]


def paper_hold_error(code: str, message: str) -> EngineError:
    """A ``set_phone`` refusal: ``code`` must be one of ``PAPER_UNTIL``'s."""
    if code not in PAPER_UNTIL:
        raise KeyError(f"{code!r} is not a paper_until code")
    return EngineError(code, message)


def set_phone(
    state: P, action: Action, seats: Collection[str], hold: PaperHold[P]
) -> tuple[P, list[Event]]:
    """The shared ``set_phone`` handler: the host hands ``action["seat"]``, a
    seat on paper, back to its phone; ``hold`` says whether a secret of the
    seat on paper keeps it there for now. The seat's secrets the app kept
    (everything ``set_paper`` left in the state) are its phone's again.

    >>> @dataclasses.dataclass(frozen=True)
    ... class Toy:
    ...     paper: tuple[str, ...] = ()
    >>> free = lambda state, seat: None
    >>> set_phone(Toy(("p2",)), {"seat": "p2", "host": True}, ["p1", "p2"], free)
    (Toy(paper=()), [{'type': 'seat_phone', 'seat': 'p2'}])
    >>> set_phone(Toy(), {"seat": "p2", "host": True}, ["p1", "p2"], free)
    Traceback (most recent call last):
    ...
    engines.errors.EngineError: p2 is not a seat on paper.
    """
    seat = check_phone(state, action, seats, hold)
    new = dataclasses.replace(  # type: ignore[type-var]
        state, paper=tuple(p for p in state.paper if p != seat)
    )
    return new, [{"type": "seat_phone", "seat": seat}]


PHONE_WHY = "Only the host can hand a seat its phone back."
SKIP_WHY = "Only the host can let the game go on without a seat."


def check_phone(state: P, action: Action, seats: Collection[str], hold: PaperHold[P]) -> str:
    """``set_phone``'s checks: the host names a seat on paper that ``hold``
    lets go now. Returns the seat."""
    refused = phone_refusal(state, action, seats, hold)
    if refused is not None:
        raise refused
    return str(action["seat"])


def phone_refusal(state: P, action: Action, seats: Collection[str], hold: PaperHold[P]) -> EngineError | None:
    """``check_phone``'s refusal, or None: its rule's check (``engines.legality``)."""
    refused = seat_refusal(action, seats, PHONE_WHY)
    if refused is not None:
        return refused
    seat = action["seat"]
    if seat not in state.paper:
        return refusal("bad_action", f"{seat} is not a seat on paper.")
    return hold(state, seat)


def host_gate(why: str) -> Gate[Any]:
    """A rule's ``when`` for a host's action: the host sent it (else
    ``not_host``, ``why`` its message)."""

    def gate(state: Any, action: Action) -> EngineError | None:
        return None if action.get("host") is True else refusal("not_host", why)

    return gate


def seat_rule(seats: Callable[[P], Sequence[str]], why: str, check: Gate[P]) -> Rule[P]:
    """A host's action on one seat (``set_phone``, ``skip``) as a rule
    (``engines.legality``): offered per seat ``seats(state)`` names (those it
    could ever be accepted for: the seats on paper, the seats waited for),
    for which ``check``, its handler's whole check, lets it through."""
    return Rule(
        host_gate(why), lambda state, player: [{"seat": s} for s in seats(state)], check, shared=True
    )


def phone_rule(seats: Callable[[P], Sequence[str]], hold: PaperHold[P]) -> Rule[P]:
    """``set_phone``'s rule for a game whose ``hold`` says which seats on paper
    must stay there for now."""
    return seat_rule(
        lambda state: [s for s in seats(state) if s in state.paper], PHONE_WHY,
        lambda state, action: phone_refusal(state, action, seats(state), hold),
    )


def phone_handler(seats: Callable[[P], Collection[str]], hold: PaperHold[P]) -> Handler[P]:
    """``set_phone`` for a game whose seat ids ``seats(state)`` lists and whose
    ``hold`` says which seats must stay on paper for now."""

    def handle(state: P, action: Action) -> tuple[P, list[Event]]:
        return set_phone(state, action, seats(state), hold)

    return handle


def paper_until(state: P, hold: PaperHold[P]) -> dict[str, str]:
    """The views' ``paper_until``: per seat on paper that ``set_phone`` would
    refuse now, when it becomes possible (a ``PAPER_UNTIL`` value)."""
    out = {}
    for seat in state.paper:
        held = hold(state, seat)
        if held is not None:
            out[seat] = PAPER_UNTIL[held.code]
    return out


def skip_seat(action: Action, seats: Collection[str], waiting: Collection[str]) -> str:
    """The checks every game's ``skip`` makes first, in this order: the host
    (``not_host``), a seat (``not_seated``), one the game waits for now
    (``not_waiting``). Returns the seat."""
    refused = skip_refusal(action, seats, waiting)
    if refused is not None:
        raise refused
    return str(action["seat"])


def skip_refusal(action: Action, seats: Collection[str], waiting: Collection[str]) -> EngineError | None:
    """``skip_seat``'s refusal, or None."""
    refused = seat_refusal(action, seats, SKIP_WHY)
    if refused is None and action["seat"] not in waiting:
        return EngineError("not_waiting", f"The game is not waiting for {action['seat']} now.")
    return refused


def seat_templates(
    state: P, seats: Sequence[str], hold: PaperHold[P], skippable: Collection[str]
) -> list[Action]:
    """The host's ``set_phone`` and ``skip`` templates (marked ``"host": True``)
    for the seats they would be accepted for now, in seat order."""
    out: list[Action] = [
        {"type": "set_phone", "seat": s, "host": True}
        for s in seats
        if s in state.paper and hold(state, s) is None
    ]
    out += [{"type": "skip", "seat": s, "host": True} for s in seats if s in skippable]
    return out


def describe_seat_event(event: Event, names: Mapping[str, str]) -> list[Part]:
    """A ``paper_seat`` or ``seat_phone`` event (``SEAT_EVENTS``) as a history
    part: every game's ``describe`` hands these to it.

    >>> describe_seat_event({"type": "paper_seat", "seat": "p2"}, {"p2": "Bo"})
    [{'key': 'history.paper_seat', 'params': {'name': 'Bo'}}]
    """
    seat = str(event.get("seat"))
    return [part(f"history.{event['type']}", name=names.get(seat, seat))]
