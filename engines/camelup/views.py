"""Per-seat views and public figures, built field by field.

Secrets: a finish card's colour is seen by its owner only until the race ends
(R13, CU-15). Money of others is hidden only with showOthersMoney=false (CU-14).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from engines.base import competition_ranks, paper_until
from engines.camelup import board, stall
from engines.camelup.constants import (
    CRAZY,
    PARTNERSHIP_MIN_PLAYERS,
    PILES,
    PYRAMID_TICKETS,
    RACING,
    SPACES,
    TILE_SPACES,
)
from engines.camelup.state import (
    OVER,
    PAPER_CARDS,
    LegReport,
    PileCard,
    Result,
    State,
    TicketReward,
)

_WHY = {1: "first", 2: "second"}


def _ticket(t: TicketReward) -> dict[str, Any]:
    why = "pyramid" if t.kind == "pyramid" else _WHY.get(t.place or 0, "other")
    return {
        "kind": t.kind,
        "camel": t.camel,
        "value": t.value,
        "place": t.place,
        "why": why,
        "reward": t.reward,
    }


def _leg(report: LegReport, money_visible: set[str]) -> dict[str, Any]:
    players = []
    for line in report.players:
        entry: dict[str, Any] = {
            "player": line.player,
            "tickets": [_ticket(t) for t in line.tickets],
            "own": line.own,
            "partner": line.partner,
            "copy": None if line.copy is None else _ticket(line.copy),
            "tile_income": line.tile_income,
            # What the leg's scoring paid (the leg_scored event's gains, as the
            # history says it): the scoring moment's figure (issue 41).
            "gain": line.own + (line.copy.reward if line.copy else 0),
        }
        if line.player in money_visible:
            entry["old"] = line.old
            entry["new"] = line.new
        players.append(entry)
    return {"leg": report.leg, "ranking": list(report.ranking), "players": players}


def _card(c: PileCard) -> dict[str, Any]:
    return {
        "player": c.player,
        "camel": c.camel,
        "correct": c.correct,
        "k": c.k,
        "delta": c.delta,
        "paid": c.paid,
    }


def _result(r: Result) -> dict[str, Any]:
    ranks = competition_ranks({p: after for p, _, after in r.money})
    return {
        "winners": list(r.winners),
        "winner_camel": r.winner_camel,
        "loser_camel": r.loser_camel,
        "ranking": list(r.ranking),
        "piles": {
            "winner": [_card(c) for c in r.winner_pile],
            "loser": [_card(c) for c in r.loser_pile],
        },
        # Each seat's place by its final money: equal money, equal place (the
        # results sheet's ranks, so both lists of a tie read "4." twice).
        "money": [{"player": p, "before": a, "after": b, "rank": ranks[p]} for p, a, b in r.money],
    }


def _money_visible(state: State, player: str | None) -> set[str]:
    if state.options.show_money or state.phase == OVER:
        return {s.id for s in state.seats}
    return {player} if player is not None else set()


def _board(state: State) -> dict[str, Any]:
    tiles = state.tiles()
    spaces = []
    for i, stack in enumerate(state.track):
        tile = tiles.get(i + 1)
        spaces.append(
            {
                "space": i + 1,
                "camels": list(stack),
                "tile": None if tile is None else {"owner": tile[0], "side": tile[1]},
            }
        )
    return {
        "spaces": spaces,
        # The screens draw and offer spaces from these, not from the rules.
        "size": SPACES,
        "tile_spaces": list(TILE_SPACES),
        "past": None
        if not state.past
        else {
            "camels": list(state.past),
            "direction": "forward" if state.past_dir > 0 else "backward",
        },
    }


def view(state: State, player: str | None) -> dict[str, Any]:
    return viewer(state)(player)


def viewer(state: State) -> Callable[[str | None], dict[str, Any]]:
    """Every seat's ``view`` of one state: the fields no seat changes are built
    once and shared (the same objects in every seat's view, never changed
    after); each call adds its seat's own fields."""
    opts = state.options
    shared: dict[str, Any] = {
        "mode": opts.mode,
        "phase": state.phase,
        "leg": state.leg,
        "over": state.phase == OVER,
        "camels": {"racing": list(RACING), "crazy": list(CRAZY)},
        "colours": dict(zip(RACING, opts.colours, strict=True)),
        "board": _board(state),
        "tiles": [
            {"space": space, "owner": owner, "side": side}
            for space, (owner, side) in sorted(state.tiles().items())
        ],
        "pyramid": list(state.pyramid),
        "tents": [
            {"die": r.die, "value": r.value, "color": r.color, "camel": r.camel}
            for r in state.tents
        ],
        # R27: the leg ends with this many dice out (one tent each).
        "tents_per_leg": PYRAMID_TICKETS,
        "last_roll": None if state.last_roll is None else {
            "die": state.last_roll.die, "value": state.last_roll.value,
            "color": state.last_roll.color, "camel": state.last_roll.camel},
        "ranking": list(board.ranking(state.track, state.past, state.past_dir)),
        "result": None if state.result is None else _result(state.result),
        # Seats without a phone, and whether the game waits on one (its turn).
        "paper": list(state.paper),
        # Whom the game waits for now (the turn), and which seats on paper must stay
        # so until when (engines/base.py, stall.py).
        "waiting": list(stall.waiting(state)),
        "paper_until": paper_until(state, stall.hold),
    }
    if opts.pyramid_only:
        shared["players"] = [{"id": s.id} for s in state.seats]
        return lambda player: dict(shared)
    show_owners = opts.show_owners or state.phase == OVER
    pile_cards = {"winner": state.winner_pile, "loser": state.loser_pile}
    counts = {pile: Counter(owner for owner, _ in cards) for pile, cards in pile_cards.items()}
    piles = {
        pile: {"size": len(cards), "owners": [o for o, _ in cards] if show_owners else None}
        for pile, cards in pile_cards.items()
    }
    shared.update(
        {
            "current_player": None if state.current is None else state.seats[state.current].id,
            "start_player": state.seats[state.start].id,
            "players": None,
            "tickets": {
                c: (t[0] if t else None) for c, t in zip(RACING, state.tickets, strict=True)
            },
            "ticket_stacks": {c: list(t) for c, t in zip(RACING, state.tickets, strict=True)},
            "pyramid_tickets_left": state.pyramid_tickets_left,
            "partnerships": len(state.seats) >= PARTNERSHIP_MIN_PLAYERS,
            "finish_piles": piles,
            "last_leg": None,
            "me": None,
            "waiting_paper": None if state.current is None or state.seats[state.current].id not in state.paper
            else state.seats[state.current].id,
            # Once the race is over: where the face-down cards lie, so the host
            # can record their camels in pile order (PAPER_CARDS phase). A seat
            # holds one card per camel (R13): the cards of one seat name
            # different camels, which the recorder keeps to (``distinct``).
            "paper_cards": None if state.phase != PAPER_CARDS else {
                **{
                    pile: [{"position": pos, "player": owner} for pos, owner in state.face_down(cards)]
                    for pile, cards in pile_cards.items()
                },
                "distinct": "player",
            },
        }
    )
    everyone = {s.id for s in state.seats}
    # What a seat sees of the others depends on it only while money or finish
    # cards are hidden: seats that see the same get the same (shared) lists.
    seen: dict[tuple[str | None, frozenset[str]], tuple[list[dict[str, Any]], dict[str, Any] | None]] = {}

    def others(me: str | None) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        visible = _money_visible(state, me)
        key = (None if show_owners else me, frozenset(visible))
        if key not in seen:
            players = []
            for s in state.seats:
                entry: dict[str, Any] = {
                    "id": s.id,
                    "bets": [{"camel": c, "value": val} for c, val in s.bets],
                    "pyramid_tickets": s.pyramid_tickets,
                    "tile": None if s.tile is None else {"space": s.tile[0], "side": s.tile[1]},
                    "partner": s.partner,
                    "copy": None
                    if s.copy is None
                    else {"choice": s.copy.kind, "camel": s.copy.camel, "value": s.copy.value},
                }
                if show_owners or s.id == me:
                    entry["finish_cards"] = {pile: counts[pile][s.id] for pile in PILES}
                if s.id in visible:
                    entry["money"] = s.money
                players.append(entry)
            seen[key] = (players, None if state.last_leg is None else _leg(state.last_leg, visible))
        return seen[key]

    def one(player: str | None) -> dict[str, Any]:
        me = player if player is not None and player in everyone else None
        v = dict(shared)
        v["players"], v["last_leg"] = others(me)
        if me is not None:
            seat = state.seat(me)
            placed = [
                {"pile": pile, "camel": camel, "position": i + 1}
                for pile, cards in pile_cards.items()
                for i, (owner, camel) in enumerate(cards)
                if owner == me
            ]
            v["me"] = {
                "id": me,
                "money": seat.money,
                "finish_hand": list(seat.hand),
                "finish_placed": placed,
            }
        return v

    return one


def public_players(state: State) -> dict[str, dict[str, Any]]:
    if state.options.pyramid_only:
        return {s.id: {} for s in state.seats}
    if state.options.show_money or state.phase == OVER:
        return {s.id: {"money": s.money} for s in state.seats}
    return {s.id: {} for s in state.seats}
