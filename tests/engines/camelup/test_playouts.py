"""Seeded random play-outs: 2,000 full games (3-8 seats) and 200 pyramid-only
games, drawing every action from legal_actions and every die from draw().

After every action: all 7 camels are on the board or past the line exactly once;
no space holds camels and a tile; betting tickets and pyramid tickets are
conserved; money is a whole number >= 0; load(dump(s)) == s; one view (the
viewers take turns: spectator, p1, p2, ...) serializes and holds no other seat's
finish-card colours (checked by swapping those colours: the view must not
change). At the start and at the end, the same for every viewer; at the
start, every new leg and the end, the round trip through JSON text. Every game
must end.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from engines.base import EngineError
from engines.camelup import ENGINE
from engines.camelup.constants import CAMELS, RACING, SPACES, TICKET_STACK
from engines.camelup.state import OVER, State

FULL_GAMES = 2000
PYRAMID_GAMES = 200
MAX_ACTIONS = 3000
ROLL_SHARE = 0.4
SORTED_CAMELS = sorted(CAMELS)
#: Swapping every colour for the next one: a seat's secrets change, nothing else.
SWAP = dict(zip(RACING, RACING[1:] + RACING[:1], strict=True))


def random_options(rng: random.Random, mode: str) -> dict[str, Any]:
    return {
        "mode": mode,
        "crazyLoneCrossingEndsGame": rng.random() < 0.8,
        "finalClamp": rng.choice(["perCard", "net"]),
        "spectatorFlipInPlace": rng.random() < 0.3,
        "partnershipCopy": rng.choice(["auto", "ask"]),
        "showOthersMoney": rng.random() < 0.7,
        "showFinishCardOwners": rng.random() < 0.7,
        "setupStackOrder": rng.choice(["random", "manual"]),
        "setupCrazyAssignment": rng.choice(["firstRollColour", "manual"]),
        "diceSource": "manual" if rng.random() < 0.1 else "app",
    }


def scrambled_for(state: State, viewer: str | None) -> State | None:
    """The state with every other seat's finish colours swapped, or None when
    no other seat has placed a card yet (then there is nothing to hide)."""
    if not any(p != viewer for p, _ in state.winner_pile + state.loser_pile):
        return None
    seats = tuple(
        s
        if s.id == viewer or len(s.hand) == len(RACING)
        else replace(s, hand=tuple(sorted((SWAP[c] for c in s.hand), key=RACING.index)))
        for s in state.seats
    )
    winner = tuple((p, c if p == viewer else SWAP[c]) for p, c in state.winner_pile)
    loser = tuple((p, c if p == viewer else SWAP[c]) for p, c in state.loser_pile)
    return replace(state, seats=seats, winner_pile=winner, loser_pile=loser)


def check_rules(state: State) -> None:
    on_board = [c for stack in state.track for c in stack] + list(state.past)
    assert sorted(on_board) == SORTED_CAMELS
    tiles = state.tiles()
    assert len(tiles) == sum(1 for s in state.seats if s.tile is not None)
    assert all(not state.track[space - 1] and 2 <= space <= SPACES for space in tiles)
    for c, camel in enumerate(RACING):
        left = state.tickets[c]
        held = [v for s in state.seats for bet_camel, v in s.bets if bet_camel == camel]
        assert sorted(left + tuple(held), reverse=True) == list(TICKET_STACK)
        assert left == TICKET_STACK[len(TICKET_STACK) - len(left) :]
    if state.options.mode == "full":
        assert sum(s.pyramid_tickets for s in state.seats) == len(state.tents)
        assert len(state.tents) < 5 or state.phase == OVER
        placed = Counter(p for p, _ in state.winner_pile + state.loser_pile)
        assert all(len(s.hand) + placed[s.id] == 5 for s in state.seats)
    assert len(state.tents) + len(state.pyramid) == 6
    assert all(type(s.money) is int and s.money >= 0 for s in state.seats)
    assert ENGINE.load(ENGINE.dump(state)) == state


def check_json(state: State) -> None:
    assert ENGINE.load(json.loads(json.dumps(ENGINE.dump(state)))) == state
    json.dumps(ENGINE.public_players(state))


def check_view(state: State, viewer: str | None) -> None:
    view = ENGINE.view(state, viewer)
    json.dumps(view)
    if state.options.mode == "full" and state.phase != OVER:
        other = scrambled_for(state, viewer)
        assert other is None or ENGINE.view(other, viewer) == view


def check_all_views(state: State) -> None:
    for viewer in [None, *(s.id for s in state.seats)]:
        check_view(state, viewer)


def correction(state: State, rng: random.Random) -> dict[str, Any] | None:
    """A host fixing the board: a random camel onto a random tile-free space."""
    camel = rng.choice(CAMELS)
    free = [i for i in range(1, SPACES + 1) if i not in state.tiles()]
    space = rng.choice(free)
    stack = [c for c in state.track[space - 1] if c != camel]
    if camel in state.past:
        return None
    return {"type": "set_stack", "space": space, "camels": stack + [camel]}


def complete(state: State, player: str, rng: random.Random) -> list[dict[str, Any]]:
    """Legal templates completed by sample() (set_stack is not sampled: see correction)."""
    out = []
    for template in ENGINE.legal_actions(state, player):
        action = ENGINE.sample(state, player, template, rng)
        if action is not None:
            out.append(action)
    return out


def pick(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    # Rolling often, as players do at a real table, keeps races at a realistic length.
    if rng.random() < ROLL_SHARE:
        rolls = [a for a in legal if a["type"] in ("pyramid", "pyramid_manual")]
        if rolls:
            return dict(rng.choice(rolls))
    kind = rng.choice(sorted({a["type"] for a in legal}))
    return dict(rng.choice([a for a in legal if a["type"] == kind]))


def play(seed: int, mode: str = "full") -> tuple[State, int]:
    rng = random.Random(seed)
    n = 3 + seed % 6 if mode == "full" else 1 + seed % 8
    players = [f"p{i}" for i in range(1, n + 1)]
    viewers: list[str | None] = [None, *players]
    options = ENGINE.normalize_options(random_options(rng, mode))
    state = ENGINE.setup(players, ENGINE.draw_setup(players, options, rng))
    check_rules(state)
    check_json(state)
    check_all_views(state)
    for step in range(MAX_ACTIONS):
        if ENGINE.status(state)["over"]:
            assert ENGINE.legal_actions(state, players[0]) == []
            check_json(state)
            check_all_views(state)
            return state, step
        actor = players[state.current] if state.current is not None else rng.choice(players)
        legal = complete(state, actor, rng)
        if state.current is not None and rng.random() < 0.1:
            # Out of turn: another seat's copy choice.
            other = rng.choice(players)
            extra = [a for a in complete(state, other, rng) if a["type"] == "copy_choice"]
            if extra:
                actor, legal = other, extra
        assert legal, f"seed {seed}: {actor} has nothing to do"
        action = correction(state, rng) if rng.random() < 0.01 else None
        if action is None:
            action = pick(legal, rng)
        action = ENGINE.draw(
            state, {**action, "player": actor, "host": action["type"] in ENGINE.host_actions}, rng
        )
        try:
            new, events = ENGINE.apply(state, action)
        except EngineError as e:  # pragma: no cover - a failure message only
            raise AssertionError(
                f"seed {seed} step {step}: legal {action} refused: {e.code} {e}"
            ) from e
        for event in events:
            json.dumps(event)
        assert new is not state and ENGINE.status(new)["round"] == new.leg
        state = new
        check_rules(state)
        # One viewer per action in rotation; JSON text at each new leg.
        check_view(state, viewers[step % len(viewers)])
        if any(e["type"] == "leg_started" for e in events):
            check_json(state)
    raise AssertionError(f"seed {seed}: the game did not end in {MAX_ACTIONS} actions")


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(10))
def test_full_games_keep_the_invariants(chunk: int) -> None:
    per = FULL_GAMES // 10
    for seed in range(chunk * per, (chunk + 1) * per):
        state, _ = play(seed)
        assert state.result is not None and state.result.winners


@pytest.mark.slow
def test_pyramid_only_games_keep_the_invariants() -> None:
    for seed in range(PYRAMID_GAMES):
        state, _ = play(seed, "pyramid")
        assert state.result is not None and state.result.winners == ()
