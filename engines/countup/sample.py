"""Random completions of free-input templates, for play-outs and load tests.

The server never calls this: at a real table the numbers, cards and bonuses
come from people.
"""

from __future__ import annotations

from typing import Any

from engines.base import Action, Rng
from engines.countup import views
from engines.countup.count import restricted, round_max
from engines.countup.state import State


def sample(state: State, player: str, template: Action, rng: Rng) -> Action | None:
    kind = template["type"]
    if kind == "numbers":
        banned = restricted(state)
        pool = [n for n in range(1, round_max(state)) if n % 10 not in banned]
        return {**template, "numbers": sorted(rng.sample(pool, 5))}
    if kind == "restriction":
        return {**template, "digits": rng.sample(range(10), 3)}
    if kind == "danger":
        lo = rng.randrange(1, 50)
        return {**template, "range": [lo, lo + rng.randrange(0, 15)]}
    if kind == "declare":
        return None  # who raised a hand at a paper table cannot be guessed
    if kind == "bonus":
        target = template.get("seat", player)
        hint: Any = views.view(state, player)["bonus"][target]["hint"]
        return {**template, "points": hint if hint is not None else rng.randrange(0, 10)}
    return template
