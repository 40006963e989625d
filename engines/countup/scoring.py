"""Round scoring (R14-R16) and the end of the game (R18-R20, UP-8, UP-9)."""

from __future__ import annotations

from collections.abc import Sequence

from engines.countup.count import restricted
from engines.countup.options import PHONE
from engines.countup.state import Result, RoundRecord, Seat, SeatResult, State

STAR = 20
TWO_STARS = 2


def _seat_result(state: State, seat: Seat) -> SeatResult:
    row = state.options.bonus[state.round - 1]
    if state.options.sheet_mode == PHONE and seat.numbers is not None:
        printed = tuple(row[x.slot] if x.slot is not None else 0 for x in seat.x_cells)
        bonus = sum(b for b, x in zip(printed, seat.x_cells, strict=True) if not x.voided)
        cell_bonus: tuple[int | None, ...] = printed
    else:
        # Paper sheets (a whole paper table, or a seat without a phone): the players
        # read their printed bonuses themselves.
        bonus = seat.bonus or 0
        cell_bonus = tuple(None for _ in seat.x_cells)
    score = seat.marker + bonus
    return SeatResult(
        numbers=seat.numbers,
        marker=seat.marker,
        x_cells=seat.x_cells,
        cell_bonus=cell_bonus,
        bonus=bonus,
        score=score,
        star=score >= STAR,
    )


def score_round(state: State) -> RoundRecord:
    """The finished round's record: marker + unvoided bonuses, ☆20."""
    assert state.end is not None
    return RoundRecord(
        number=state.round,
        restriction=state.restriction,
        restricted=tuple(sorted(restricted(state))),
        danger=state.danger if state.options.danger_enabled else None,
        end=state.end,
        last=state.count,
        seats=tuple(_seat_result(state, seat) for seat in state.seats),
    )


def round_scores(rounds: Sequence[RoundRecord], i: int) -> list[int]:
    return [r.seats[i].score for r in rounds]


def stars(rounds: Sequence[RoundRecord], i: int) -> int:
    return sum(1 for r in rounds if r.seats[i].star)


def _key(scores: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Total first, then round scores from the highest down (R20, UP-9)."""
    return sum(scores), tuple(sorted(scores, reverse=True))


def decide(players: Sequence[str], rounds: Sequence[RoundRecord]) -> Result | None:
    """The result once the game is over after the last scored round, else None."""
    twice = [p for i, p in enumerate(players) if stars(rounds, i) >= TWO_STARS]
    if twice:
        ended_by, candidates = "two_stars", twice
    elif len(rounds) >= 4:
        ended_by, candidates = "last_round", list(players)
    else:
        return None
    keys = {p: _key(round_scores(rounds, players.index(p))) for p in candidates}
    best = max(keys.values())
    winners = tuple(p for p in candidates if keys[p] == best)
    depth: int | None = None
    tied = [p for p in candidates if keys[p][0] == best[0]]
    if len(candidates) == 1:
        reason = "two_stars"
    elif len(tied) == 1:
        reason = "total"
    elif len(winners) > 1:
        reason = "shared"
    else:
        reason = "tie_break"
        # The rank of round score that separated the winner from the last rival.
        depth = 1 + max(
            next(k for k, (a, b) in enumerate(zip(best[1], keys[p][1], strict=True)) if a != b)
            for p in tied
            if p != winners[0]
        )
    return Result(winners=winners, ended_by=ended_by, reason=reason, tie_break_depth=depth)
