"""The Camel Up engine object: wires options, rules, views and history lines."""

from __future__ import annotations

from typing import Any

from engines.base import Action, Modules, Rng, SkeletonEngine, refusal
from engines.camelup import actions, describe, fair, legal, options, result, schemas, stall, views
from engines.camelup.board import board_of, build_track
from engines.camelup.constants import CRAZY, GREY, RACING, TICKET_STACK
from engines.camelup.state import OVER, PLAYING, Seat, State


class CamelUpEngine(SkeletonEngine):
    name = "camelup"
    title = {"ko": "카멜업 2판", "en": "Camel Up (Second Edition)"}
    #: The 2nd edition is its own BGG entry.
    bgg_id = 260605
    # Issue 38: the die an undo put back on the pyramid is anyone's to roll.
    open_redraws = ("pyramid",)
    random_option_fields = ("setup",)
    sealing_events = frozenset({"pile_revealed", "race_ended", "game_over"})
    # A face-down finish card's camel (R13); a paper seat's names none.
    sealed_choices = {"finish_bet": ("camel",)}
    # A face-down finish card's camel is the seat's secret until the race ends;
    # the server holds it (it pays the piles), the store keeps it encrypted
    # (server/service/atrest.py), piles and the logged bet alike.
    at_rest_state = (("winner_pile",), ("loser_pile",))
    at_rest_actions = {"finish_bet": ("camel",)}
    host_actions = ("next_round", "set_stack", "set_paper", "set_phone", "skip", "paper_cards")
    state_type = State
    modules = Modules(actions, views, result, describe, schemas, options, fair, legal, stall)

    def seated(self, state: State, player: str) -> bool:
        return any(seat.id == player for seat in state.seats)

    def player_limits(self, options: dict[str, Any]) -> tuple[int, int]:
        # Pyramid-only: the host's phone alone is enough.
        return (1, 8) if options.get("mode") == "pyramid" else (3, 8)

    def normalize_options(self, options_: dict[str, Any]) -> dict[str, Any]:
        return options.normalize_options(options_)

    def draw_setup(self, players: list[str], options_: dict[str, Any], rng: Rng) -> dict[str, Any]:
        return options.draw_setup(options_, rng)

    def setup(self, players: list[str], options_: dict[str, Any]) -> State:
        raw = options.normalize_options(options_)
        if raw["setup"] is None:
            raise refusal("bad_options", "The setup rolls are missing (draw_setup fills them).")
        lo, hi = self.player_limits(raw)
        if not lo <= len(players) <= hi or len(set(players)) != len(players):
            raise refusal("bad_options", f"This mode needs {lo} to {hi} different seats.")
        opts = options.Options.from_json(raw)
        track = build_track(opts.racing_setup + opts.crazy_setup)
        return State(
            options=opts,
            seats=tuple(Seat(id=p) for p in players),
            track=track,
            tickets=(TICKET_STACK,) * len(RACING),
            current=None if opts.pyramid_only else 0,
        )

    def draw(self, state: State, action: Action, rng: Rng) -> Action:
        if action.get("type") != "pyramid" or state.phase != PLAYING:
            return action
        out = dict(action)
        left = state.pyramid
        if "die" not in out:
            if not left:
                return action
            # CU-19: a die uniformly from those left, then one of its 6 faces.
            out["die"] = rng.choice(list(left))
        # Each draw gives the logged field itself (die, color, value), so a
        # proof links every random field of the roll to its draw.
        if out["die"] == GREY and "color" not in out:
            out["color"] = rng.choice(CRAZY)
        if "value" not in out:
            out["value"] = rng.choice(options.FACES)
        return out

    def sample(self, state: State, player: str, template: Action, rng: Rng) -> Action | None:
        if template["type"] == "set_stack":
            return None  # a correction copies the physical board: entered by people, not sampled
        if template["type"] == "paper_cards":
            return actions.sample_paper_cards(state, rng)
        return template

    def analysis_viewer(self, state: State, player: str | None) -> str | None:
        # Only the tile what-ifs depend on the seat, and only when the seat's own
        # tile is on the board (it is lifted before trying other spots).
        owners = {owner for owner, _ in state.tiles().values()}
        return player if player in owners else None

    def analysis(self, state: State, player: str | None) -> dict[str, Any] | None:
        """Exact leg odds, ticket values, tile spots and a race estimate for
        the current position: public information only (no finish cards)."""
        from engines.camelup import odds  # NumPy is loaded only when asked

        if state.phase != PLAYING:
            return None
        b = board_of(state)
        b["tickets"] = {c: list(t) for c, t in zip(RACING, state.tickets, strict=True)}
        seat = player if player is not None and any(s.id == player for s in state.seats) else None
        # Seeded by the position, so every instance and every phone sees the same estimate.
        seed = state.leg * 10 + len(state.tents)
        return odds.analyse(b, seat, state.options.to_json(), seed=seed)

    def status(self, state: State) -> dict[str, Any]:
        return {"round": state.leg, "over": state.phase == OVER}

