"""The game state: frozen dataclasses of tuples, and its JSON codec.

The reference model of the spec (section 1) maps onto these fields; the pyramid and
the pyramid-ticket stack are derived from the dice tents rather than stored twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from engines.camelup.constants import DICE, PYRAMID_TICKETS, RACING, START_MONEY
from engines.camelup.options import Options

T = TypeVar("T")

PLAYING = "playing"
#: Pyramid-only mode: the fifth die is out; ``next_leg`` starts the next leg.
LEG_OVER = "leg_over"
OVER = "over"


@dataclass(frozen=True)
class Roll:
    """One die out of the pyramid: ``color`` is the grey die's number colour,
    ``camel`` the camel it moved (R17 may pick the other crazy camel)."""

    die: str
    value: int
    color: str | None
    camel: str


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


# --- codec -------------------------------------------------------------------


def _new(cls: type[T], **fields: Any) -> T:
    """Builds a frozen dataclass from trusted, complete fields without the
    per-field ``object.__setattr__`` of the generated ``__init__``; ``load``
    runs on every request, so this is worth it."""
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _ticket_json(t: TicketReward | None) -> Any:
    if t is None:
        return None
    return [t.kind, t.camel, t.value, t.place, t.reward]


def _ticket_load(raw: Any) -> TicketReward | None:
    if raw is None:
        return None
    kind, camel, value, place, reward = raw
    return _new(TicketReward, kind=kind, camel=camel, value=value, place=place, reward=reward)


def _card_json(c: PileCard) -> list[Any]:
    return [c.player, c.camel, c.correct, c.k, c.delta, c.paid]


def _leg_json(r: LegReport | None) -> Any:
    if r is None:
        return None
    return {
        "leg": r.leg,
        "ranking": list(r.ranking),
        "players": [
            {
                "player": p.player,
                "tickets": [_ticket_json(t) for t in p.tickets],
                "own": p.own,
                "partner": p.partner,
                "copy": _ticket_json(p.copy),
                "tile_income": p.tile_income,
                "old": p.old,
                "new": p.new,
            }
            for p in r.players
        ],
    }


def _leg_load(raw: Any) -> LegReport | None:
    if raw is None:
        return None
    players = tuple(
        _new(
            PlayerLeg,
            player=p["player"],
            tickets=tuple(_ticket_load(t) for t in p["tickets"]),  # type: ignore[misc]
            own=p["own"],
            partner=p["partner"],
            copy=_ticket_load(p["copy"]),
            tile_income=p["tile_income"],
            old=p["old"],
            new=p["new"],
        )
        for p in raw["players"]
    )
    return LegReport(raw["leg"], tuple(raw["ranking"]), players)


def _result_json(r: Result | None) -> Any:
    if r is None:
        return None
    return {
        "ranking": list(r.ranking),
        "winner_camel": r.winner_camel,
        "loser_camel": r.loser_camel,
        "winner_pile": [_card_json(c) for c in r.winner_pile],
        "loser_pile": [_card_json(c) for c in r.loser_pile],
        "money": [list(m) for m in r.money],
        "winners": list(r.winners),
    }


def _result_load(raw: Any) -> Result | None:
    if raw is None:
        return None
    return Result(
        ranking=tuple(raw["ranking"]),
        winner_camel=raw["winner_camel"],
        loser_camel=raw["loser_camel"],
        winner_pile=tuple(PileCard(*c) for c in raw["winner_pile"]),
        loser_pile=tuple(PileCard(*c) for c in raw["loser_pile"]),
        money=tuple((p, a, b) for p, a, b in raw["money"]),
        winners=tuple(raw["winners"]),
    )


def _seat_json(s: Seat) -> dict[str, Any]:
    return {
        "id": s.id,
        "money": s.money,
        "bets": [[c, v] for c, v in s.bets],
        "pyramid_tickets": s.pyramid_tickets,
        "hand": list(s.hand),
        "tile": None if s.tile is None else [s.tile[0], s.tile[1]],
        "partner": s.partner,
        "copy": None if s.copy is None else [s.copy.kind, s.copy.camel, s.copy.value],
        "tile_income": s.tile_income,
    }


def _seat_load(raw: dict[str, Any]) -> Seat:
    tile = raw["tile"]
    copy = raw["copy"]
    return _new(
        Seat,
        id=raw["id"],
        money=raw["money"],
        bets=tuple([(c, v) for c, v in raw["bets"]]),
        pyramid_tickets=raw["pyramid_tickets"],
        hand=tuple(raw["hand"]),
        tile=None if tile is None else (tile[0], tile[1]),
        partner=raw["partner"],
        copy=None if copy is None else Copy(*copy),
        tile_income=raw["tile_income"],
    )


def dump(state: State) -> dict[str, Any]:
    return {
        "options": state.options.to_json(),
        "seats": [_seat_json(s) for s in state.seats],
        "track": [list(stack) for stack in state.track],
        "tents": [[r.die, r.value, r.color, r.camel] for r in state.tents],
        "tickets": [list(t) for t in state.tickets],
        "winner_pile": [list(c) for c in state.winner_pile],
        "loser_pile": [list(c) for c in state.loser_pile],
        "leg": state.leg,
        "start": state.start,
        "current": state.current,
        "phase": state.phase,
        "past": list(state.past),
        "past_dir": state.past_dir,
        "last_leg": _leg_json(state.last_leg),
        "result": _result_json(state.result),
        "last_roll": None if state.last_roll is None else [
            state.last_roll.die, state.last_roll.value, state.last_roll.color, state.last_roll.camel],
    }


def load(raw: dict[str, Any]) -> State:
    return _new(
        State,
        options=Options.from_json(raw["options"]),
        seats=tuple([_seat_load(s) for s in raw["seats"]]),
        track=tuple([tuple(stack) for stack in raw["track"]]),
        tents=tuple([Roll(*r) for r in raw["tents"]]),
        tickets=tuple([tuple(t) for t in raw["tickets"]]),
        winner_pile=tuple([(p, c) for p, c in raw["winner_pile"]]),
        loser_pile=tuple([(p, c) for p, c in raw["loser_pile"]]),
        leg=raw["leg"],
        start=raw["start"],
        current=raw["current"],
        phase=raw["phase"],
        past=tuple(raw["past"]),
        past_dir=raw["past_dir"],
        last_leg=_leg_load(raw["last_leg"]),
        result=_result_load(raw["result"]),
        last_roll=None if raw.get("last_roll") is None else Roll(*raw["last_roll"]),
    )
