"""The game state as immutable values (JSON through ``engines.codec``).

Seats are kept in tuples aligned with ``State.players`` (seat order), never in
dicts, so no part of a state is mutable: ``apply`` builds new values with
``dataclasses.replace`` and an old state can never change under its holder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engines import codec
from engines.countup.options import PHONE, Options

# Phases of a round, in order. ``cards``: the host types the physical cards in
# (manual mode). ``entry``: phone sheets are being written. ``count``: the
# caller calls numbers. ``bonus``: paper mode, players enter their bonuses.
# ``scored``: waiting for next_round. ``over``: the game has ended.
CARDS = "cards"
ENTRY = "entry"
COUNT = "count"
BONUS = "bonus"
SCORED = "scored"
OVER = "over"

# Why a round ended.
END_MAX = "max"
END_MARKER20 = "marker20"


@dataclass(frozen=True)
class XCell:
    """A crossed-out cell. ``slot`` (0-4) is unknown in paper mode."""

    number: int
    slot: int | None
    voided: bool


@dataclass(frozen=True)
class Call:
    """What happened on one called number (public)."""

    number: int
    #: Players who declared ``number`` (one: solo, two or more: collision).
    declared: tuple[str, ...]
    #: The leader whose marker moved on this number (step a), if any.
    advanced: str | None
    #: Leader after the call (None after a collision or before the first solo).
    leader: str | None
    #: Who counts aloud next; UI only (UP-11).
    counter: str
    #: Set on the number that ended the round.
    end: str | None
    #: A collision inside the danger zone (bonuses voided).
    voided: bool


@dataclass(frozen=True)
class Seat:
    """One player's sheet row and marker in the current round."""

    numbers: tuple[int, ...] | None  # phone mode, ascending; None until locked
    marker: int
    x_cells: tuple[XCell, ...]
    declared: tuple[int, ...]
    bonus: int | None  # paper mode: the points entered; None while awaited


@dataclass(frozen=True)
class SeatResult:
    """One player's scored round (public once the round has ended)."""

    numbers: tuple[int, ...] | None
    marker: int
    x_cells: tuple[XCell, ...]
    #: The printed bonus of each X cell (None in paper mode: slot unknown).
    cell_bonus: tuple[int | None, ...]
    bonus: int
    score: int
    star: bool


@dataclass(frozen=True)
class RoundRecord:
    number: int
    restriction: tuple[int, ...] | None
    restricted: tuple[int, ...]
    danger: tuple[int, int] | None
    end: str
    last: int
    seats: tuple[SeatResult, ...]


@dataclass(frozen=True)
class Result:
    winners: tuple[str, ...]
    #: "two_stars" (a second ☆20 ended the game) or "last_round".
    ended_by: str
    #: What decided among the candidates: "two_stars" (a single candidate),
    #: "total", "tie_break" or "shared".
    reason: str
    #: 1-based rank of the round score that broke the tie (R20), else None.
    tie_break_depth: int | None


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    options: Options
    round: int
    phase: str
    #: The revealed restriction card (printed digits) and danger range.
    restriction: tuple[int, ...] | None
    danger: tuple[int, int] | None
    #: Deck indices drawn so far (without replacement, UP-2 / R2).
    restriction_used: tuple[int, ...]
    danger_used: tuple[int, ...]
    seats: tuple[Seat, ...]
    #: The last number called (0: the count has not started).
    count: int
    #: The advancing leader (R9: ``advancing`` is ``leader is not None``).
    leader: str | None
    counter: str
    end: str | None
    #: finalCountDeclarations in paper mode: a marker reached 20 on ``count``,
    #: the host may still declare collisions on it before the round ends.
    final_pending: bool
    calls: tuple[Call, ...]
    caller: str | None
    rounds: tuple[RoundRecord, ...]
    result: Result | None
    #: Seats whose secrets are held on paper (engines/base.py ``set_paper``): they write
    #: on the printed sheet (issue 17).
    paper: tuple[str, ...] = field(default=(), metadata=codec.OMIT_DEFAULT)

    def index(self, player: str) -> int:
        return self.players.index(player)

    def paper_sheet(self, i: int) -> bool:
        """Seat ``i`` writes this round's numbers on paper, so the app does not know
        them: every seat at a paper table; at a phone table a seat without a phone
        (or one that lost it before locking a sheet), from the count on."""
        if self.options.sheet_mode != PHONE:
            return True
        if self.seats[i].numbers is not None:
            return False
        return self.players[i] in self.paper or self.phase not in (CARDS, ENTRY)

    def bonus_pending(self, i: int) -> bool:
        """Seat ``i``'s bonus must be read off its paper sheet and is not in yet."""
        return self.paper_sheet(i) and self.seats[i].bonus is None
