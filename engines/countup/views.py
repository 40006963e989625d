"""What each seat may see and do, built field by field (whitelist).

Secrets: a seat's locked numbers. Another seat's number becomes visible only
once it has been called and declared (then it is on the table for everyone),
and whole sheets only once the round has ended (R14: everyone scores openly).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.base import paper_until
from engines.countup import count as cnt
from engines.countup import stall
from engines.countup.options import BIG_TABLE, ROUNDS, needs_restriction
from engines.countup.scoring import round_scores, stars
from engines.countup.sheet import sheet_check
from engines.countup.state import (
    BONUS,
    CARDS,
    ENTRY,
    OVER,
    SCORED,
    Call,
    RoundRecord,
    State,
    XCell,
)


def _cell(x: XCell, printed: int | None) -> dict[str, Any]:
    return {"number": x.number, "slot": x.slot, "voided": x.voided, "bonus": printed}


def _call(c: Call) -> dict[str, Any]:
    return {
        "number": c.number,
        "declared": list(c.declared),
        "advanced": c.advanced,
        "leader": c.leader,
        "counter": c.counter,
        "voided": c.voided,
        "end": c.end,
    }


def _record(players: tuple[str, ...], r: RoundRecord) -> dict[str, Any]:
    return {
        "round": r.number,
        "restriction": list(r.restriction) if r.restriction is not None else None,
        "restricted_digits": list(r.restricted),
        "danger": list(r.danger) if r.danger is not None else None,
        "end": r.end,
        "last": r.last,
        "players": {
            p: {
                "numbers": list(s.numbers) if s.numbers is not None else None,
                "marker": s.marker,
                "x_cells": [_cell(x, b) for x, b in zip(s.x_cells, s.cell_bonus, strict=True)],
                "bonus": s.bonus,
                "score": s.score,
                "star": s.star,
            }
            for p, s in zip(players, r.seats, strict=True)
        },
    }


def _bonus_hint(state: State, i: int) -> int | None:
    """Paper mode: the bonus the configured table predicts, when every slot of
    the round is worth the same (otherwise the slot of a cell is unknown)."""
    row = state.options.bonus[state.round - 1]
    if len(set(row)) != 1:
        return None
    return row[0] * sum(1 for x in state.seats[i].x_cells if not x.voided)


def _sheets(state: State, player: str | None) -> dict[str, Any]:
    row = state.options.bonus[state.round - 1]
    revealed = state.end is not None or state.phase in (SCORED, OVER)
    out: dict[str, Any] = {}
    for p, seat in zip(state.players, state.seats, strict=True):
        mine = p == player
        show = seat.numbers is not None and (mine or revealed)
        out[p] = {
            "locked": seat.numbers is not None,
            # The host let the count start without this sheet (skip): no numbers.
            "sat_out": seat.numbers == (),
            "numbers": list(seat.numbers) if show and seat.numbers is not None else None,
            "declared": list(seat.declared),
            "marker": seat.marker,
            "x_cells": [
                _cell(x, row[x.slot] if x.slot is not None else None) for x in seat.x_cells
            ],
        }
    return out


def view(state: State, player: str | None) -> dict[str, Any]:
    return viewer(state)(player)


def viewer(state: State) -> Callable[[str | None], dict[str, Any]]:
    """Every seat's ``view`` of one state: what no seat changes is built once
    and shared (the same objects in every seat's view, never changed after);
    each call adds its seat's own fields and its own sheet."""
    opts = state.options
    n = len(state.players)
    top = cnt.round_max(state)
    # In the scored/over phases the current row is still the finished round's
    # row (next_round clears it), so the sheets stay visible for the result.
    v: dict[str, Any] = {
        "phase": state.phase,
        "round": state.round,
        "rounds": ROUNDS,
        "players": list(state.players),
        "me": None,
        "sheet_mode": opts.sheet_mode,
        "max": top,
        "number_range": [1, top - 1],
        "restriction_card": list(state.restriction) if state.restriction is not None else None,
        "restricted_digits": sorted(cnt.restricted(state)),
        # What the sheet screen checks as numbers are typed (the engine decides on lock).
        "sheet_check": sheet_check(cnt.restricted(state), top - 1),
        "big_table": n >= BIG_TABLE,
        "marker_top": cnt.MARKER_TOP,
        "restriction_pending": state.phase == CARDS
        and needs_restriction(opts, n)
        and state.restriction is None,
        "danger_enabled": opts.danger_enabled,
        "danger": list(state.danger) if state.danger is not None else None,
        "danger_pending": state.phase == CARDS and opts.danger_enabled and state.danger is None,
        "bonus_row": list(opts.bonus[state.round - 1]),
        "interval_ms": opts.count_interval_ms,
        "caller": state.caller,
        "you_call": False,
        "my_numbers": None,
        "count": {
            "value": state.count,
            # A number nobody can have written cannot be declared (restricted_number).
            "restricted_digit": state.count % 10
            if state.count % 10 in cnt.restricted(state) else None,
            "leader": state.leader,
            "counter": state.counter,
            "end": state.end,
            "final_pending": state.final_pending,
            "markers": {p: s.marker for p, s in zip(state.players, state.seats, strict=True)},
            "calls": [_call(c) for c in state.calls],
        },
        "sheets": _sheets(state, None),
        "rounds_played": [_record(state.players, r) for r in state.rounds],
        "result": None,
        # Seats without a phone; the sheets on paper this round (the app cannot read
        # them); and whose entry the table waits for now (a bonus off a paper sheet).
        "paper": list(state.paper),
        "paper_sheets": [p for i, p in enumerate(state.players) if state.paper_sheet(i)],
        "paper_waiting": [
            p for i, p in enumerate(state.players)
            if p in state.paper and state.phase == BONUS and state.bonus_pending(i)
        ],
        # Whom the game waits for now (sheets, bonuses), and which seats on paper must
        # stay so until when (engines/base.py, stall.py).
        "waiting": list(stall.waiting(state)),
        "paper_until": paper_until(state, stall.hold),
    }
    if state.phase == BONUS:
        v["bonus"] = {
            p: {
                "points": s.bonus,
                "pending": state.bonus_pending(i),
                "hint": _bonus_hint(state, i),
            }
            for i, (p, s) in enumerate(zip(state.players, state.seats, strict=True))
        }
    if state.result is not None:
        r = state.result
        v["result"] = {
            "winners": list(r.winners),
            "ended_by": r.ended_by,
            "reason": r.reason,
            "tie_break_depth": r.tie_break_depth,
            "totals": {
                p: sum(round_scores(state.rounds, i)) for i, p in enumerate(state.players)
            },
            "stars": {p: stars(state.rounds, i) for i, p in enumerate(state.players)},
        }
    shared = v

    def one(player: str | None) -> dict[str, Any]:
        v = dict(shared)
        if player is None or player not in state.players:
            return v
        v["me"] = player
        v["you_call"] = player == state.caller
        numbers = state.seats[state.index(player)].numbers
        v["my_numbers"] = list(numbers) if numbers is not None else None
        if numbers is not None and shared["sheets"][player]["numbers"] is None:
            # Its own locked numbers, before the round ends shows every sheet.
            v["sheets"] = {**shared["sheets"], player: {**shared["sheets"][player], "numbers": list(numbers)}}
        return v

    return one


def public_players(state: State) -> dict[str, dict[str, Any]]:
    # Whether a seat has locked its sheet matters while sheets are written
    # (who is the table waiting for?); from the count on every sheet is in.
    writing = state.phase in (CARDS, ENTRY)
    out: dict[str, dict[str, Any]] = {}
    for i, p in enumerate(state.players):
        scores = round_scores(state.rounds, i)
        seat = state.seats[i]
        out[p] = {
            "round_scores": scores,
            "stars": stars(state.rounds, i),
            "total": sum(scores),
            "marker": seat.marker,
        }
        if writing:
            out[p]["locked"] = seat.numbers is not None
    return out
