"""A die out of the pyramid and the rules that follow on automatically: the
camel's move (R12), the leg's end and scoring (R27-R29), the race's end and the
piles (R34-R39). ``actions.py``'s pyramid handlers and the host's record of the
face-down cards lead here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict

from engines.base import Event
from engines.camelup import board, scoring
from engines.camelup.constants import CRAZY, GREY, PYRAMID_TICKETS, RACING, TICKET_STACK
from engines.camelup.state import (
    LEG_OVER,
    OVER,
    PAPER_CARDS,
    Result,
    Roll,
    Seat,
    State,
    end_turn,
    evolve,
    set_seat,
)


def roll(
    state: State, player: str, die: str, value: int, color: str | None
) -> tuple[State, list[Event]]:
    """R12: one die out of the pyramid moves its camel; a leg or the race may end."""
    full = not state.options.pyramid_only
    camel = die if die != GREY else board.select_crazy(state.track, color or CRAZY[0])
    track, mv = board.move(
        state.track, state.tiles(), camel, value, state.options.lone_crossing_ends
    )
    roll = Roll(die, value, color, camel)
    state = evolve(state, track=track, tents=state.tents + (roll,), last_roll=roll)
    idx = state.index(player)
    if full:
        state = set_seat(state, idx, pyramid_tickets=state.seats[idx].pyramid_tickets + 1)
    # The turn's seat, which a returned die's roller need not be: the next leg
    # starts after it (R27), as it would have had it rolled.
    turn = idx if state.current is None else state.current
    events: list[Event] = [
        {
            "type": "die_rolled",
            "player": player,
            "die": die,
            "value": value,
            "color": color,
            "camel": camel,
        },
    ]
    moved: Event = {
        "type": "camel_moved",
        "camel": camel,
        "unit": list(mv.unit),
        "from": mv.start,
        "to": mv.space,
        "on_top": mv.on_top,
        "crossed": mv.crossed,
        "wrapped": mv.wrapped,
        "tile": None,
    }
    if mv.tile is not None:
        space, owner, side = mv.tile
        moved["tile"] = {"space": space, "owner": owner, "side": side}
        if full:
            # R23: the owner's +1 is paid at once, before any crossing (R25).
            o = state.index(owner)
            s = state.seats[o]
            state = set_seat(state, o, money=s.money + 1, tile_income=s.tile_income + 1)
    events.append(moved)
    if mv.crossed:
        state = evolve(state, past=mv.unit, past_dir=mv.crossed)
        state, more = end_race(state)
        return state, events + more
    if len(state.tents) == PYRAMID_TICKETS:
        state, more = end_leg(state, turn)
        return state, events + more
    if full:
        state = end_turn(state)
    return state, events


# --- leg end, race end ----------------------------------------------------------------


def _scored(state: State) -> tuple[State, Event]:
    ranking = board.ranking(state.track, state.past, state.past_dir)
    report = scoring.score_leg(state.seats, ranking, state.leg, state.options.partnership_copy)
    seats = tuple(
        evolve(s, money=line.new) for s, line in zip(state.seats, report.players, strict=True)
    )
    gains = {
        line.player: line.own + (line.copy.reward if line.copy else 0) for line in report.players
    }
    event = {"type": "leg_scored", "leg": state.leg, "ranking": list(ranking), "gains": gains}
    return evolve(state, seats=seats, last_leg=report), event


def _cleanup(seat: Seat) -> Seat:
    # R29: tickets back, tiles home, partnership cards available again.
    return evolve(
        seat, bets=(), pyramid_tickets=0, tile=None, partner=None, copy=None, tile_income=0
    )


def end_leg(state: State, roller: int) -> tuple[State, list[Event]]:
    """R27-R29 after the fifth die (the race did not end)."""
    if state.options.pyramid_only:
        ranking = board.ranking(state.track)
        state = evolve(state, phase=LEG_OVER)
        return state, [{"type": "leg_ended", "leg": state.leg, "ranking": list(ranking)}]
    state, scored = _scored(state)
    start = (roller + 1) % len(state.seats)
    state = evolve(
        state,
        seats=tuple(_cleanup(s) for s in state.seats),
        tickets=(TICKET_STACK,) * len(RACING),
        tents=(),
        leg=state.leg + 1,
        start=start,
        current=start,
    )
    started = {"type": "leg_started", "leg": state.leg, "start_player": state.seats[start].id}
    return state, [scored, started]


def end_race(state: State) -> tuple[State, list[Event]]:
    """R34-R39: one leg scoring, then the winner and loser piles."""
    ranking = board.ranking(state.track, state.past, state.past_dir)
    ended = {
        "type": "race_ended",
        "winner_camel": ranking[0],
        "loser_camel": ranking[-1],
        "ranking": list(ranking),
    }
    if state.options.pyramid_only:
        result = Result(ranking, ranking[0], ranking[-1], (), (), (), ())
        return evolve(state, phase=OVER, current=None, result=result), [ended]
    state, scored = _scored(state)
    down = {p: len(state.face_down(c)) for p, c in (("winner", state.winner_pile), ("loser", state.loser_pile))}
    if any(down.values()):
        # Physical cards of seats without a phone lie face down on a pile: the
        # host records them first (do_paper_cards), then the piles are paid.
        waiting = {"type": "paper_cards_waiting", **down}
        return evolve(state, phase=PAPER_CARDS, current=None), [ended, scored, waiting]
    state, events = score_piles(state)
    return state, [ended, scored, *events]


def score_piles(state: State, void: Mapping[str, list[Event]] | None = None) -> tuple[State, list[Event]]:
    """R36-R39: the winner pile, then the loser pile, then the winners."""
    ranking = board.ranking(state.track, state.past, state.past_dir)
    before = {s.id: s.money for s in state.seats}
    wcards, lcards, final = scoring.final_scoring(
        before,
        state.winner_pile,
        state.loser_pile,
        ranking[0],
        ranking[-1],
        state.options.final_clamp,
    )
    won = scoring.winners(final)
    result = Result(
        ranking=ranking,
        winner_camel=ranking[0],
        loser_camel=ranking[-1],
        winner_pile=wcards,
        loser_pile=lcards,
        money=tuple((p, before[p], final[p]) for p in before),
        winners=won,
    )
    seats = tuple(evolve(s, money=final[s.id]) for s in state.seats)
    state = evolve(state, seats=seats, phase=OVER, current=None, result=result)
    events: list[Event] = []
    for pile, cards in (("winner", wcards), ("loser", lcards)):
        event: Event = {
            "type": "pile_revealed",
            "pile": pile,
            # Every field of the card: player, camel, correct, k, delta, paid.
            "cards": [asdict(c) for c in cards],
        }
        if void and void.get(pile):
            event["void"] = void[pile]
        events.append(event)
    events.append({"type": "game_over", "winners": list(won), "money": final})
    return state, events
