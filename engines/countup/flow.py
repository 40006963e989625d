"""Setup, the cards of each round (R2-R4, UP-2, UP-4, UP-17) and round ends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from engines.base import EngineError, Event, Rng, refusal
from engines.countup.options import (
    DECK,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PHONE,
    Options,
    freeze,
    needs_restriction,
)
from engines.countup.scoring import decide, score_round, stars
from engines.countup.state import BONUS, CARDS, COUNT, ENTRY, OVER, SCORED, Seat, State


def blank_seats(n: int) -> tuple[Seat, ...]:
    return tuple(Seat(numbers=None, marker=0, x_cells=(), declared=(), bonus=None) for _ in range(n))


def remaining(size: int, used: Sequence[int]) -> list[int]:
    """Deck indices still face down; a spent deck is reshuffled whole.

    >>> remaining(3, [0, 2]), remaining(2, [0, 1])
    ([1], [0, 1])
    """
    left = [i for i in range(size) if i not in used]
    return left or list(range(size))


def take(deck: Sequence[Sequence[int]], used: tuple[int, ...], card: Any) -> tuple[int, ...]:
    """``used`` after drawing ``card`` (given as its printed values)."""
    left = remaining(len(deck), used)
    if len(left) == len(deck):
        used = ()
    for i in left:
        if list(deck[i]) == list(card):
            return used + (i,)
    raise EngineError("not_in_deck", f"The card {list(card)} is not left in the deck.")


def needs_danger(options: Options) -> bool:
    return options.danger_enabled


def draw_cards(
    options: Options, players: int, r_used: tuple[int, ...], d_used: tuple[int, ...],
    rng: Rng, have: dict[str, Any],
) -> dict[str, Any]:
    """Deck mode: fills ``restriction`` / ``danger`` for a new round unless
    given. Each is a choice among the cards left themselves (not their deck
    positions), so a proof of the draw (docs/fairness.md) shows the card."""
    out: dict[str, Any] = {}
    if options.restriction_source != DECK:
        return out
    if needs_restriction(options, players) and have.get("restriction") is None:
        deck = options.restriction_deck
        out["restriction"] = rng.choice([list(deck[i]) for i in remaining(len(deck), r_used)])
    if needs_danger(options) and have.get("danger") is None:
        zones = options.danger_zones
        out["danger"] = rng.choice([list(zones[i]) for i in remaining(len(zones), d_used)])
    return out


def open_round(state: State) -> State:
    """The round's phase once its cards are known (or still awaited)."""
    opts = state.options
    if opts.restriction_source != DECK:
        missing_card = needs_restriction(opts, len(state.players)) and state.restriction is None
        missing_zone = needs_danger(opts) and state.danger is None
        if missing_card or missing_zone:
            return replace(state, phase=CARDS)
    return replace(state, phase=ENTRY if opts.sheet_mode == PHONE else COUNT)


def reveal(state: State, restriction: Any, danger: Any) -> State:
    """Deck mode: places the drawn cards of the round (checked against the deck)."""
    opts = state.options
    if opts.restriction_source != DECK:
        return state
    if needs_restriction(opts, len(state.players)):
        if restriction is None:
            raise EngineError("missing_card", "The round's restriction card was not drawn.")
        used = take(opts.restriction_deck, state.restriction_used, restriction)
        state = replace(state, restriction=tuple(restriction), restriction_used=used)
    if needs_danger(opts):
        if danger is None:
            raise EngineError("missing_card", "The round's danger-zone card was not drawn.")
        used = take(opts.danger_zones, state.danger_used, danger)
        state = replace(state, danger=(danger[0], danger[1]), danger_used=used)
    return state


def setup(players: Sequence[str], options: dict[str, Any]) -> State:
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise EngineError(
            "bad_player_count", f"Count Up needs {MIN_PLAYERS}-{MAX_PLAYERS} players."
        )
    if len(set(players)) != len(players):
        raise EngineError("bad_player_count", "Each player may sit only once.")
    opts = freeze(options)
    state = State(
        players=tuple(players),
        options=opts,
        round=1,
        phase=CARDS,
        restriction=None,
        danger=None,
        restriction_used=(),
        danger_used=(),
        seats=blank_seats(len(players)),
        count=0,
        leader=None,
        counter=players[0],
        end=None,
        final_pending=False,
        calls=(),
        caller=None,
        rounds=(),
        result=None,
    )
    try:
        state = reveal(state, options.get("firstRestrictionCard"), options.get("firstDangerCard"))
    except EngineError as exc:
        raise refusal("bad_options", f"{exc.message} (draw_setup fills round 1's cards)") from exc
    return open_round(state)


def count_if_ready(state: State) -> tuple[State, list[Event]]:
    """Phone sheets: the count starts once every seat with a phone has locked its
    sheet; seats writing on paper are not waited for."""
    if state.phase != ENTRY:
        return state, []
    if any(s.numbers is None and not state.paper_sheet(i) for i, s in enumerate(state.seats)):
        return state, []
    return replace(state, phase=COUNT), [{"type": "count_ready", "round": state.round}]


def next_round(state: State, restriction: Any, danger: Any) -> State:
    """R5, R17: markers back to 00, a fresh row and new cards."""
    state = replace(
        state,
        round=state.round + 1,
        restriction=None,
        danger=None,
        seats=blank_seats(len(state.players)),
        count=0,
        leader=None,
        counter=state.players[0],
        end=None,
        final_pending=False,
        calls=(),
    )
    return open_round(reveal(state, restriction, danger))


def close_round(state: State) -> tuple[State, list[Event]]:
    """After the count ended: score now, or (paper) wait for the bonuses."""
    events: list[Event] = [
        {"type": "round_ended", "round": state.round, "number": state.count, "end": state.end}
    ]
    paper = [state.paper_sheet(i) for i in range(len(state.players))]
    if any(paper):
        # Only paper sheets with an unvoided X cell have a bonus to read off the sheet.
        seats = tuple(
            replace(s, bonus=0) if on and not any(not x.voided for x in s.x_cells) else s
            for s, on in zip(state.seats, paper, strict=True)
        )
        state = replace(state, seats=seats)
        if any(state.bonus_pending(i) for i in range(len(seats))):
            return replace(state, phase=BONUS), events
    state, more = score(state)
    return state, events + more


def score(state: State) -> tuple[State, list[Event]]:
    record = score_round(state)
    rounds = state.rounds + (record,)
    events: list[Event] = [
        {
            "type": "round_scored",
            "round": state.round,
            "scores": {p: s.score for p, s in zip(state.players, record.seats, strict=True)},
            "stars": [p for p, s in zip(state.players, record.seats, strict=True) if s.star],
        }
    ]
    result = decide(state.players, rounds)
    if result is None:
        return replace(state, rounds=rounds, phase=SCORED), events
    events.append(
        {
            "type": "game_over",
            "winners": list(result.winners),
            "ended_by": result.ended_by,
            "reason": result.reason,
            "stars": {p: stars(rounds, i) for i, p in enumerate(state.players)},
        }
    )
    return replace(state, rounds=rounds, result=result, phase=OVER), events
