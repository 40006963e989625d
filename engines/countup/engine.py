"""The Count Up engine: wires the modules to the ``engines.base`` contract."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import Action, Event, Modules, Rng, SkeletonEngine
from engines.countup import actions, describe, fair, legal, options, result, schemas, stall, views
from engines.countup.flow import draw_cards
from engines.countup.flow import setup as new_game
from engines.countup.options import MAX_PLAYERS, MIN_PLAYERS, freeze, normalize
from engines.countup.sample import sample as sample_input
from engines.countup.state import OVER, SCORED, State
from engines.history import HistoryText, Part


class CountUpEngine(SkeletonEngine):
    name = "countup"
    title = {"ko": "카운트 업", "en": "Count Up"}
    random_option_fields = options.RANDOM_OPTION_FIELDS
    #: ``count_ready``: the phone sheets are locked for the round (R7); nothing
    #: may reopen entry once the count can show what is on them.
    sealing_events = frozenset({"count_ready", "round_ended", "round_scored", "game_over"})
    sealed_choices = {"numbers": ("numbers",)}
    # The server must read a sheet before the round's end (docs/fairness.md);
    # the store keeps it encrypted (server/service/atrest.py).
    at_rest_state = (("seats", "*", "numbers"),)
    at_rest_actions = {"numbers": ("numbers",)}
    state_type = State
    modules = Modules(actions, views, result, describe, schemas, options, fair, legal, stall)

    def player_limits(self, options: dict[str, Any]) -> tuple[int, int]:
        return MIN_PLAYERS, MAX_PLAYERS

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return normalize(options)

    def draw_setup(self, players: list[str], options: dict[str, Any], rng: Rng) -> dict[str, Any]:
        out = normalize(options)
        have = {"restriction": out["firstRestrictionCard"], "danger": out["firstDangerCard"]}
        drawn = draw_cards(freeze(out), len(players), (), (), rng, have)
        if "restriction" in drawn:
            out["firstRestrictionCard"] = drawn["restriction"]
        if "danger" in drawn:
            out["firstDangerCard"] = drawn["danger"]
        return out

    def setup(self, players: list[str], options: dict[str, Any]) -> State:
        return new_game(players, options)

    def draw(self, state: State, action: Action, rng: Rng) -> Action:
        if action.get("type") != "next_round" or state.phase != SCORED:
            return action
        drawn = draw_cards(
            state.options, len(state.players), state.restriction_used, state.danger_used,
            rng, action,
        )
        return {**action, **drawn}

    def seals(self, events: Sequence[Event]) -> bool:
        """Besides ``sealing_events``: a call that showed a number on a sheet the
        app holds (someone declared it) stays called. A quiet call, and a tap the
        caller made for a paper sheet (``declared``: the table's own input, no
        secret of the app), stay undoable (docs/rules/countup.md)."""
        return super().seals(events) or any(e["type"] == "called" and e["declared"] for e in events)

    def sample(self, state: State, player: str, template: Action, rng: Rng) -> Action | None:
        return sample_input(state, player, template, rng)

    def status(self, state: State) -> dict[str, Any]:
        return {"round": state.round, "over": state.phase == OVER}

    def history_lines(self, events: list[Event], names: dict[str, str]) -> list[HistoryText]:
        return describe.history_lines(events, names)

    def stretch(self, first: int, last: int, by: str, then: bool) -> Part:
        return describe.stretch(first, last, by, then)

