"""The Count Up engine: wires the modules to the ``engines.base`` contract."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import Action, Event, Modules, Rng, SkeletonEngine
from engines.countup import (
    actions,
    describe,
    fair,
    flow,
    legal,
    options,
    result,
    sample,
    schemas,
    stall,
    views,
)
from engines.countup.options import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    RANDOM_OPTION_FIELDS,
    freeze,
    normalize,
)
from engines.countup.state import (
    OVER,
    SCORED,
    State,
)
from engines.history import HistoryText, Part


class CountUpEngine(SkeletonEngine):
    name = "countup"
    title = {"ko": "카운트 업", "en": "Count Up"}
    random_option_fields = RANDOM_OPTION_FIELDS
    #: ``count_ready``: the phone sheets are locked for the round (R7); nothing
    #: may reopen entry once the count can show what is on them.
    sealing_events = frozenset({"count_ready", "round_ended", "round_scored", "game_over"})
    sealed_choices = {"numbers": ("numbers",)}
    # The server must read a sheet before the round's end (docs/fairness.md);
    # the store keeps it encrypted (server/service/atrest.py).
    at_rest_state = (("seats", "*", "numbers"),)
    at_rest_actions = {"numbers": ("numbers",)}
    state_type = State
    modules = Modules(actions, views, result, describe, schemas, options, fair)

    def player_limits(self, options: dict[str, Any]) -> tuple[int, int]:
        return MIN_PLAYERS, MAX_PLAYERS

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return normalize(options)

    def draw_setup(self, players: list[str], options: dict[str, Any], rng: Rng) -> dict[str, Any]:
        out = normalize(options)
        have = {"restriction": out["firstRestrictionCard"], "danger": out["firstDangerCard"]}
        drawn = flow.draw_cards(freeze(out), len(players), (), (), rng, have)
        if "restriction" in drawn:
            out["firstRestrictionCard"] = drawn["restriction"]
        if "danger" in drawn:
            out["firstDangerCard"] = drawn["danger"]
        return out

    def setup(self, players: list[str], options: dict[str, Any]) -> State:
        return flow.setup(players, options)

    def draw(self, state: State, action: Action, rng: Rng) -> Action:
        if action.get("type") != "next_round" or state.phase != SCORED:
            return action
        drawn = flow.draw_cards(
            state.options, len(state.players), state.restriction_used, state.danger_used,
            rng, action,
        )
        return {**action, **drawn}

    def legal_actions(self, state: State, player: str | None) -> list[Action]:
        """The candidates that pass the handlers' own gates (``legal.py``).
        Host-only ones carry ``"host": True`` (the engine does not know who
        the host is; the server filters on it)."""
        if player not in state.players or state.phase == OVER:
            return []
        return legal.offers(state, player)

    def offered(self, state: State, player: str, host: bool) -> list[Action]:
        if player not in state.players or state.phase == OVER:
            return []
        return legal.offers.offered(state, player, host, self.host_actions)

    def waiting(self, state: State) -> tuple[str, ...]:
        return stall.waiting(state)

    def seals(self, events: Sequence[Event]) -> bool:
        """Besides ``sealing_events``: a call that showed a number on a sheet the
        app holds (someone declared it) stays called. A quiet call, and a tap the
        caller made for a paper sheet (``declared``: the table's own input, no
        secret of the app), stay undoable (docs/rules/countup.md)."""
        return super().seals(events) or any(e["type"] == "called" and e["declared"] for e in events)

    def sample(self, state: State, player: str, template: Action, rng: Rng) -> Action | None:
        return sample.sample(state, player, template, rng)

    def status(self, state: State) -> dict[str, Any]:
        return {"round": state.round, "over": state.phase == OVER}

    def history_lines(self, events: list[Event], names: dict[str, str]) -> list[HistoryText]:
        return describe.history_lines(events, names)

    def stretch(self, first: int, last: int, by: str, then: bool) -> Part:
        return describe.stretch(first, last, by, then)

