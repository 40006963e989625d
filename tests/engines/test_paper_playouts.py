"""Random play-outs of King Up! and Count Up with a seat on paper (issue 17):
whatever ``legal_actions`` lists for that seat is accepted when sent for it, the
game ends, and the seat is only ever asked for what the table enters for it
(its public moves, a card once shown, a raised hand, its bonus): never its
numbers, a dealt card or an early vote."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from engines import registry
from engines.base import Engine, EngineError
from server.service import schemas
from server.service.snapshot import host_filter

PAPER_TYPES = {
    "kingup": {"goal", "vote", "place", "move", "score_round"},
    "countup": {"paper_declare", "bonus"},
}


@pytest.mark.parametrize("game", sorted(PAPER_TYPES))
@pytest.mark.parametrize("seed", range(6))
def test_random_games_with_a_seat_on_paper_end(game: str, seed: int) -> None:
    engine = registry.get(game)
    assert isinstance(engine, Engine)
    rng = random.Random(seed)
    players = [f"p{i + 1}" for i in range(3 + seed % 3)]
    paper = players[1]
    options = engine.normalize_options(schemas.options_with_defaults(engine, {}))
    options = engine.draw_setup(players, options, rng)
    state = replace(engine.setup(players, options), paper=(paper,))
    for _ in range(4000):
        if engine.status(state)["over"]:
            break
        choices = []
        for p in players:
            for template in host_filter(engine, engine.legal_actions(state, p), p == players[0]):
                if p == paper:
                    assert template["type"] in PAPER_TYPES[game], template
                if template["type"] == "set_phone":
                    continue  # on paper all game here; test_paper_stall.py hands phones back
                action = engine.sample(state, p, template, rng)
                if action is not None:
                    choices.append((p, action))
        assert choices, f"{game} seed {seed}: nobody can act"
        player, template = rng.choice(choices)
        action = engine.draw(state, {**template, "player": player, "host": player == players[0]}, rng)
        try:
            state, _ = engine.apply(state, action)
        except EngineError as exc:
            pytest.fail(f"{game} seed {seed}: legal {action} refused: {exc.code} {exc}")
        for viewer in (None, *players):
            json.dumps(engine.view(state, viewer))
        assert engine.load(json.loads(json.dumps(engine.dump(state)))) == state
    assert engine.status(state)["over"], f"{game} seed {seed} did not end"
    assert state.paper == (paper,)
