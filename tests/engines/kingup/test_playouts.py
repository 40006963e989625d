"""Seeded random play-outs: random legal actions (and random input where a player types
it), checking the invariants of the spec after every change."""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engines.base import EngineError
from engines.kingup import ENGINE
from engines.kingup.castle import board_problem, count_at, legal_moves, level_counts
from engines.kingup.constants import CHARACTERS, ELIMINATED, LEVEL_CAP, THRONE, TOP_LEVEL
from engines.kingup.scoring import scores
from engines.kingup.state import MOVEMENT, OVER, VOTE, State
from tests.words import check_parts

VALIDATORS = {k: Draft202012Validator(s) for k, s in ENGINE.action_schemas.items()}
OPTIONS = Draft202012Validator(ENGINE.options_schema)
# The issue asks for at least 2,000 games; KINGUP_PLAYOUTS scales the run up or down.
GAMES = int(os.environ.get("KINGUP_PLAYOUTS", "2000"))
BATCHES = 8


def random_options(rng: random.Random, n: int) -> dict[str, Any]:
    options: dict[str, Any] = {
        "goalCardMode": rng.choice(["record", "record", "deal"]),
        "playMode": rng.choice(["full"] * 5 + ["score_only"]),
        "first_seat": rng.randint(1, n),
        "tieBreak": rng.choice(["survivors", "none"]),
        "tieBreakCountsLevel0": rng.random() < 0.7,
    }
    if rng.random() < 0.2:
        options["rounds"] = rng.randint(1, 4)
    if rng.random() < 0.2:
        options["noCardsPerPlayer"] = {str(n): rng.randint(0, {3: 4, 4: 3, 5: 2, 6: 2}[n])}
    OPTIONS.validate(options)
    return ENGINE.normalize_options(options)


def random_board(rng: random.Random, state: State) -> dict[str, Any]:
    while True:
        chars = list(CHARACTERS)
        rng.shuffle(chars)
        board: dict[str, Any] = {chars[0]: "throne"}
        for c in chars[1:]:
            board[c] = rng.choice([0, 1, 2, 3, 4, 5, "eliminated"])
        positions = [
            THRONE if board[c] == "throne" else ELIMINATED if board[c] == "eliminated" else board[c]
            for c in CHARACTERS
        ]
        if board_problem(state, positions) is None:
            return board


def fill(rng: random.Random, state: State, template: dict[str, Any]) -> dict[str, Any]:
    """Adds what a player types: goal characters, a final board."""
    action = dict(template)
    if action["type"] == "goal":
        action["characters"] = rng.sample(CHARACTERS, 6)
    elif action["type"] == "score_round":
        action["board"] = random_board(rng, state)
        action["goals"] = {
            p: rng.sample(CHARACTERS, 6)
            for p, g in zip(state.players, state.goals, strict=True)
            if g is None
        }
    return action


def check_invariants(state: State) -> None:
    pos = state.positions
    counts = level_counts(pos)
    assert len(pos) == 13
    assert max(counts[1 : TOP_LEVEL + 1]) <= LEVEL_CAP
    assert counts[THRONE] <= 1
    if state.phase == MOVEMENT:
        assert counts[THRONE] == 0
        # R11: there is always a legal move, so no pass rule is needed.
        assert legal_moves(pos)
    if state.phase == VOTE:
        assert counts[THRONE] == 1
    no_each = state.no_each
    assert all(0 <= k <= no_each for k in state.no_left)
    # R15, R18: every elimination spends at least one No card.
    if state.config.play_mode == "full":
        assert count_at(pos, ELIMINATED) <= sum(no_each - k for k in state.no_left)


def check_results(state: State) -> None:
    for result in state.results:
        assert count_at(result.positions, THRONE) == 1, "every round ends with a King"
        for s in scores(state.config, result):
            assert 0 <= s <= 33
            if result.round == state.config.zero33_round:
                assert s >= 1
    if state.config.goal_mode == "deal":
        assert len(set(state.used_cards)) == len(state.used_cards)


def check_round_trip(state: State) -> None:
    data = json.loads(json.dumps(ENGINE.dump(state)))
    assert ENGINE.load(data) == state


def check_views(state: State) -> None:
    for viewer in [*state.players, None]:
        json.dumps(ENGINE.view(state, viewer))
    json.dumps(ENGINE.public_players(state))
    json.dumps(ENGINE.status(state))


def play(seed: int, deep: bool) -> State:
    """One game; ``deep`` also checks views, schemas and history text at every step."""
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    players = [f"p{i}" for i in range(1, n + 1)]
    state = ENGINE.setup(players, random_options(rng, n))
    no_bias = rng.random()
    phase = None
    for _ in range(5000):
        check_invariants(state)
        if deep:
            check_views(state)
        if deep or state.phase != phase:
            check_round_trip(state)
            check_results(state)
            phase = state.phase
        if ENGINE.status(state)["over"]:
            assert all(ENGINE.legal_actions(state, p) == [] for p in players)
            return state
        options = [(p, a) for p in players for a in ENGINE.legal_actions(state, p)]
        assert options, "someone can always act"
        player, template = rng.choice(options)
        if template["type"] == "vote":
            # Each game has its own taste for No, so both crowns and long rounds happen.
            can_no = {"type": "vote", "vote": "no"} in ENGINE.legal_actions(state, player)
            template = {
                "type": "vote",
                "vote": "no" if can_no and rng.random() < no_bias else "yes",
            }
        action = fill(rng, state, template)
        action = ENGINE.draw(state, {**action, "player": player, "host": player == "p1"}, rng)
        if deep:
            payload = {k: v for k, v in action.items() if k not in ("type", "player", "host")}
            VALIDATORS[action["type"]].validate(payload)
        before = ENGINE.dump(state) if deep else None
        try:
            new, events = ENGINE.apply(state, action)
        except EngineError as e:
            # Only next_round and the templates marked for the host (set_phone, skip)
            # may be refused, from a non-host seat: legal_actions cannot know the host.
            assert e.code == "not_host", e.message
            assert action["type"] == "next_round" or template.get("host") is True, e.message
            continue
        if deep:
            assert ENGINE.dump(state) == before, "apply must not change its input"
        state = new
        for event in events:
            json.dumps(event)
            if deep:
                check_parts(ENGINE.describe(event, {p: p.upper() for p in players}))
    raise AssertionError("the game did not end")


@pytest.mark.slow
@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_playouts_keep_the_invariants(batch):
    for seed in range(batch, GAMES, BATCHES):
        state = play(seed, deep=seed % 100 == 0)
        assert state.phase == OVER
        assert len(state.results) == state.config.rounds
        result = ENGINE.view(state, None)["result"]
        assert result["winners"]
        totals = result["totals"]
        assert all(totals[w] == max(totals.values()) for w in result["winners"])


def test_every_player_count_is_played_with_deep_checks():
    counts: set[int] = set()
    for seed in range(20):
        counts.add(len(play(seed, deep=True).players))
        if counts == {3, 4, 5, 6}:
            return
    raise AssertionError(f"only {sorted(counts)} players came up")
