"""King Up! (킹업!) behind the platform's engine contract."""

from __future__ import annotations

from typing import Any

from engines.base import Action, Modules, Rng, SkeletonEngine, refusal
from engines.kingup import actions, describe, fair, legal, options, result, schemas, stall, views
from engines.kingup.constants import CHARACTERS, MIN_PLAYERS
from engines.kingup.options import normalize, parse
from engines.kingup.state import OVER, State, deck_left, new_round


class KingUpEngine(SkeletonEngine):
    name = "kingup"
    title = {"ko": "킹업!", "en": "King Up!"}
    # Deal mode draws each card with draw_goal, never in setup: the table's options are
    # shown to every phone, so a dealt card must not live there.
    random_option_fields = ()
    private_draws = ("draw_goal",)
    sealing_events = frozenset({"votes_revealed", "round_scored", "game_over"})
    sealed_choices = {"vote": ("vote",)}
    state_type = State
    modules = Modules(actions, views, result, describe, schemas, options, fair, legal, stall)

    def player_limits(self, options: dict[str, Any]) -> tuple[int, int]:
        return MIN_PLAYERS, parse(options).max_players()

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return normalize(options)

    def setup(self, players: list[str], options: dict[str, Any]) -> State:
        cfg = parse(options)
        n = len(players)
        if not MIN_PLAYERS <= n <= cfg.max_players() or len(set(players)) != n:
            raise refusal(
                "bad_options",
                f"King Up! needs {MIN_PLAYERS} to {cfg.max_players()} distinct seats, not {n}.",
            )
        if cfg.first_seat > n:
            raise refusal(
                "bad_options", f"first_seat is {cfg.first_seat}, but there are only {n} seats."
            )
        return new_round(cfg, tuple(players), 1, cfg.first_seat - 1, (), ())

    def draw(self, state: State, action: Action, rng: Rng) -> Action:
        if action.get("type") != "draw_goal" or "card" in action:
            return action
        left = deck_left(state)
        return {**action, "card": rng.choice(left)} if left else action

    def sample(self, state: State, player: str, template: Action, rng: Rng) -> Action | None:
        if template["type"] == "goal":
            return {**template, "characters": sorted(rng.sample(list(CHARACTERS), 6))}
        if template["type"] == "open_vote":
            return None  # the value and salt kept on one phone: never sampled
        if template["type"] == "score_round":
            return None  # a whole end-of-round board: entered by people, not sampled
        return template

    def status(self, state: State) -> dict[str, Any]:
        return {"round": state.round, "over": state.phase == OVER}

