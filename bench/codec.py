"""CPU to dump each state of a game in turn, as the server does after every
action (``engine.dump`` into the table's document):

    .venv/bin/python bench/codec.py [--seed 5] [--players 5] [--steps 400] [--rounds 3]

For each game it plays one seeded random game (legal actions only, chosen as
the engines' contract test chooses them), then, per round, dumps every state
of it in order: each state shares with the one before all that its action
left alone. Prints µs per state. ``PYTHONPATH=<tree>`` measures that tree's
codec (the tree needs ``tests/engines/driver.legal_choices``): the same
command on two builds compares them.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path
from typing import Any

# Appended, not first: a PYTHONPATH of another tree wins, so this script can
# time a build that lacks it.
sys.path.append(str(Path(__file__).resolve().parent.parent))

from engines import registry  # noqa: E402
from engines.base import Engine  # noqa: E402
from server.service import schemas  # noqa: E402
from tests.engines.driver import legal_choices  # noqa: E402


def play(engine: Engine, seed: int, players: int, steps: int) -> list[Any]:
    """The states of one seeded game, from its setup on (at most ``steps`` actions)."""
    rng = random.Random(seed)
    options = engine.normalize_options(schemas.options_with_defaults(engine, {}))
    lo, hi = engine.player_limits(options)
    seats = [f"p{i + 1}" for i in range(min(max(players, lo), hi))]
    options = engine.draw_setup(seats, options, rng)
    state = engine.setup(seats, options)
    states = [state]
    for _ in range(steps):
        if engine.status(state)["over"]:
            break
        player, template = rng.choice(legal_choices(engine, state, seats, rng))
        action = engine.draw(state, {**template, "player": player, "host": player == seats[0]}, rng)
        state, _ = engine.apply(state, action)
        states.append(state)
    return states


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    for name in registry.names():
        engine = registry.get(name)
        assert engine is not None
        times = []
        for _ in range(args.rounds):
            states = play(engine, args.seed, args.players, args.steps)
            gc.collect()
            gc.disable()  # a collection inside one round made it ten times slower
            t = time.process_time()
            for s in states:
                engine.dump(s)
            times.append((time.process_time() - t) / len(states) * 1e6)
            gc.enable()
        print(f"{name}: {len(states)} states, dumped in turn: "
              + " / ".join(f"{x:.1f}" for x in times) + " µs a state")


if __name__ == "__main__":
    main()
