"""The Count Up engine: wires the modules to the ``engines.base`` contract."""

from __future__ import annotations

from typing import Any

from engines.base import Action, Engine, Event, Rng
from engines.countup import actions, describe, flow, sample, views
from engines.countup.options import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPTIONS_SCHEMA,
    RANDOM_OPTION_FIELDS,
    freeze,
    normalize,
)
from engines.countup.schemas import ACTION_SCHEMAS, RANDOM_ACTION_FIELDS
from engines.countup.state import OVER, SCORED, State, from_json, to_json


class CountUpEngine(Engine):
    name = "countup"
    title = {"ko": "카운트 업", "en": "Count Up"}
    options_schema = OPTIONS_SCHEMA
    action_schemas = ACTION_SCHEMAS
    random_action_fields = RANDOM_ACTION_FIELDS
    random_option_fields = RANDOM_OPTION_FIELDS

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
        return views.legal_actions(state, player)

    def sample(self, state: State, player: str, template: Action, rng: Rng) -> Action | None:
        return sample.sample(state, player, template, rng)

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        return actions.apply(state, action)

    def view(self, state: State, player: str | None) -> dict[str, Any]:
        return views.view(state, player)

    def public_players(self, state: State) -> dict[str, dict[str, Any]]:
        return views.public_players(state)

    def status(self, state: State) -> dict[str, Any]:
        return {"round": state.round, "over": state.phase == OVER}

    def describe(self, event: Event, lang: str, names: dict[str, str]) -> str:
        return describe.describe(event, lang, names)

    def dump(self, state: State) -> Any:
        return to_json(state)

    def load(self, data: Any) -> State:
        return from_json(State, data)
