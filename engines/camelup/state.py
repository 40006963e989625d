"""The game state: frozen dataclasses of tuples (JSON through ``engines.codec``).

The reference model of the spec (section 1) maps onto these fields; the pyramid and
the pyramid-ticket stack are derived from the dice tents rather than stored twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from engines import codec
from engines.camelup.constants import DICE, PYRAMID_TICKETS, RACING, START_MONEY
from engines.camelup.options import Options
from engines.codec import positional

T = TypeVar("T")

PLAYING = "playing"
#: Pyramid-only mode: the fifth die is out; ``next_leg`` starts the next leg.
LEG_OVER = "leg_over"
OVER = "over"
#: The race is over and a pile holds cards of seats without a phone: the host
#: records what each face-down card names before the piles are paid (R36).
PAPER_CARDS = "paper_cards"
#: The camel of a finish card a seat without a phone placed face down: only
#: the card is known until the host records it at the race's end.
FACE_DOWN = ""


@positional
@dataclass(frozen=True)
class Roll:
    """One die out of the pyramid: ``color`` is the grey die's number colour,
    ``camel`` the camel it moved (R17 may pick the other crazy camel)."""

    die: str
    value: int
    color: str | None
    camel: str


@positional
@dataclass(frozen=True)
class Copy:
    """A declared partnership copy (``partnershipCopy=ask``): ``kind`` is
    best, none, pyramid or bet (then ``camel`` and ``value`` name the ticket)."""

    kind: str
    camel: str | None = None
    value: int | None = None


@dataclass(frozen=True)
class Seat:
    id: str
    money: int = START_MONEY
    #: Leg betting tickets held this leg, (camel, value) in the order taken.
    bets: tuple[tuple[str, int], ...] = ()
    pyramid_tickets: int = 0
    #: Finish cards still in hand (secret), in colour order.
    hand: tuple[str, ...] = RACING
    #: (space, side) of the spectator tile, or None while it is off the board.
    tile: tuple[int, str] | None = None
    partner: str | None = None
    copy: Copy | None = None
    #: Spectator income earned this leg; already paid, kept for the leg report.
    tile_income: int = 0


@positional
@dataclass(frozen=True)
class TicketReward:
    kind: str
    camel: str | None
    value: int
    place: int | None
    reward: int


@dataclass(frozen=True)
class PlayerLeg:
    player: str
    tickets: tuple[TicketReward, ...]
    own: int
    partner: str | None
    copy: TicketReward | None
    tile_income: int
    old: int
    new: int


@dataclass(frozen=True)
class LegReport:
    leg: int
    ranking: tuple[str, ...]
    players: tuple[PlayerLeg, ...]


@positional
@dataclass(frozen=True)
class PileCard:
    player: str
    camel: str
    correct: bool
    #: k of R37 for a correct card, else None.
    k: int | None
    #: What the card is worth (+pay or -1) and what actually changed hands.
    delta: int
    paid: int


@dataclass(frozen=True)
class Result:
    ranking: tuple[str, ...]
    winner_camel: str
    loser_camel: str
    winner_pile: tuple[PileCard, ...]
    loser_pile: tuple[PileCard, ...]
    #: (player, money before the piles, final money), seat order.
    money: tuple[tuple[str, int, int], ...]
    winners: tuple[str, ...]


@dataclass(frozen=True)
class State:
    options: Options
    seats: tuple[Seat, ...]
    #: 16 stacks, index 0 = space 1, each bottom -> top.
    track: tuple[tuple[str, ...], ...]
    #: This leg's dice in the order they came out (the dice tents).
    tents: tuple[Roll, ...] = ()
    #: Per racing colour (RACING order), the betting tickets left, top first.
    tickets: tuple[tuple[int, ...], ...] = ()
    winner_pile: tuple[tuple[str, str], ...] = ()
    loser_pile: tuple[tuple[str, str], ...] = ()
    leg: int = 1
    start: int = 0
    #: Seat index whose turn it is (full mode while playing), else None.
    current: int | None = 0
    phase: str = PLAYING
    #: The unit that crossed the finish line (bottom -> top) and which way:
    #: +1 clockwise (progress 17), -1 counterclockwise (progress 0).
    past: tuple[str, ...] = ()
    past_dir: int = 0
    last_leg: LegReport | None = None
    result: Result | None = None
    #: The most recent die, kept across the leg reset: the die that ends a leg
    #: must still reach every phone after the tents are cleared.
    last_roll: Roll | None = None
    #: Seats whose secrets are held on paper (engines/base.py ``set_paper``).
    paper: tuple[str, ...] = field(default=(), metadata=codec.OMIT_DEFAULT)

    @property
    def pyramid(self) -> tuple[str, ...]:
        """Dice still in the pyramid, in DICE order."""
        out = {roll.die for roll in self.tents}
        return tuple(d for d in DICE if d not in out)

    @property
    def pyramid_tickets_left(self) -> int:
        return PYRAMID_TICKETS - len(self.tents)

    def seat(self, player: str) -> Seat:
        for seat in self.seats:
            if seat.id == player:
                return seat
        raise KeyError(player)

    def index(self, player: str) -> int:
        for i, seat in enumerate(self.seats):
            if seat.id == player:
                return i
        raise KeyError(player)

    def face_down(self, pile: tuple[tuple[str, str], ...]) -> list[tuple[int, str]]:
        """(position from 1, owner) of each face-down card of ``pile``, in pile order."""
        return [(i + 1, owner) for i, (owner, camel) in enumerate(pile) if camel == FACE_DOWN]

    def paper_cards_left(self, player: str) -> int:
        """How many finish cards a seat without a phone still holds: its hand
        less the cards it placed face down (whose camels nobody knows yet)."""
        down = sum(1 for owner, c in self.winner_pile + self.loser_pile if owner == player and c == FACE_DOWN)
        return len(self.seat(player).hand) - down

    def tiles(self) -> dict[int, tuple[str, str]]:
        """space -> (owner, side) of every spectator tile on the board."""
        return {s.tile[0]: (s.id, s.tile[1]) for s in self.seats if s.tile is not None}


def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` for our plain frozen dataclasses (no __post_init__,
    no slots), about ten times faster: apply runs it several times per action
    and the random play-outs run hundreds of thousands of actions."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


def set_seat(state: State, idx: int, **changes: Any) -> State:
    """``state`` with the seat at ``idx`` changed as ``evolve`` changes it."""
    seats = list(state.seats)
    seats[idx] = evolve(seats[idx], **changes)
    return evolve(state, seats=tuple(seats))


def end_turn(state: State) -> State:
    """The next seat's turn (a full game in play)."""
    assert state.current is not None
    return evolve(state, current=(state.current + 1) % len(state.seats))
