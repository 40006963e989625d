"""The finished race as a result sheet: money after each leg, the final bets,
the final money (R34-R39). Figures come from the engine's own scoring, read
off the replayed states, never recomputed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engines.base import Step, competition_ranks
from engines.camelup.state import OVER, State
from engines.camelup.views import _card


def result(state: State, steps: Iterable[Step]) -> dict[str, Any] | None:
    if state.phase != OVER or state.result is None:
        return None
    res = state.result
    ids = [s.id for s in state.seats]
    rounds: list[dict[str, Any]] = []
    start_player: str | None = None
    for i, (st, events) in enumerate(steps):
        if i == 0:
            start_player = st.seats[st.start].id
        for ev in events:
            if ev["type"] != "leg_scored":
                continue
            if st.phase == OVER:
                # The last leg: the state already holds the final money; the
                # money before the piles is the money after this leg.
                money = {p: before for p, before, _ in res.money}
            else:
                money = {s.id: s.money for s in st.seats}
            rounds.append({"leg": ev["leg"], "ranking": ev["ranking"], "gains": ev["gains"],
                           "money": money})
    pyramid_only = state.options.pyramid_only
    final = {s.id: s.money for s in state.seats}
    ranks = competition_ranks(final)
    players = [
        {"id": p, "score": None if pyramid_only else final[p],
         "rank": None if pyramid_only else ranks[p], "winner": p in res.winners}
        for p in ids
    ]
    bets = {
        "final": True,
        "winner_camel": res.winner_camel,
        "loser_camel": res.loser_camel,
        "ranking": list(res.ranking),
        "piles": {"winner": [_card(c) for c in res.winner_pile],
                  "loser": [_card(c) for c in res.loser_pile]},
        "money": {p: after for p, _, after in res.money},
    }
    if not pyramid_only:
        rounds.append(bets)
    return {"players": players, "rounds": rounds, "start_player": start_player,
            "money_tracked": not pyramid_only}
