"""Secret twins: states that differ from a game's state only in secrets (a seat's
goal card, No count, vote, numbers, finish cards, hidden money), for the properties
that must read public information only (``Engine.waiting``, the host's templates)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from engines.camelup.constants import RACING
from engines.camelup.state import FACE_DOWN
from engines.camelup.state import State as CamelState
from tests.engines.countup.test_secrecy import other_secret
from tests.engines.kingup.test_secrecy import _variants as kingup_variants


def _camelup(state: CamelState, rng: random.Random) -> list[CamelState]:
    """Each seat's finish cards (in hand and face up on the piles) dealt to other
    camels; the money of every seat moved when others cannot see it."""
    out = []
    for seat in state.seats:
        placed = [(pile, i) for pile, cards in (("w", state.winner_pile), ("l", state.loser_pile))
                  for i, (owner, camel) in enumerate(cards) if owner == seat.id and camel != FACE_DOWN]
        camels = list(RACING)
        rng.shuffle(camels)
        hand = tuple(sorted(camels[:len(seat.hand)], key=RACING.index))
        others = iter(camels[len(seat.hand):])
        piles = {"w": list(state.winner_pile), "l": list(state.loser_pile)}
        for pile, i in placed:
            piles[pile][i] = (seat.id, next(others))
        seats = tuple(replace(s, hand=hand) if s.id == seat.id else s for s in state.seats)
        twin = replace(state, seats=seats, winner_pile=tuple(piles["w"]), loser_pile=tuple(piles["l"]))
        if twin != state:
            out.append(twin)
    if not state.options.show_money and state.phase != "over":
        out.append(replace(state, seats=tuple(replace(s, money=s.money + 7) for s in state.seats)))
    return out


def twins(game: str, state: Any, rng: random.Random) -> list[Any]:
    """States equal to ``state`` but for secrets (none for a game without any here)."""
    if game == "kingup":
        return [v for b in range(state.n) for v in kingup_variants(state, b, rng)]
    if game == "countup":
        if state.phase not in ("entry", "count") or state.end is not None:
            return []  # once the round has ended every sheet is shown
        return [t for p in state.players if (t := other_secret(state, p, rng)) is not None]
    if game == "camelup":
        return [] if state.options.pyramid_only else _camelup(state, rng)
    return []
