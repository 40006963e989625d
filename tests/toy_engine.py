"""A tiny game used to test the platform before (and apart from) the real games.

Players take turns adding a die roll (1-6, a random input) or a chosen number
(1-3) to their score; the first to reach ``target`` wins. One secret: each
seat's ``note``, visible only to that seat. Rounds advance by the host's
``next_round`` once every seat has played in the round.
"""

from __future__ import annotations

from typing import Any

from engines.base import SET_PAPER_SCHEMA, Action, Engine, EngineError, Event, Rng
from engines.history import Part, part


class ToyEngine(Engine):
    name = "toy"
    title = {"ko": "장난감", "en": "Toy"}
    options_schema = {
        "type": "object",
        "properties": {
            "target": {"type": "integer", "minimum": 2, "maximum": 1000, "default": 20},
            "min_players": {"type": "integer", "minimum": 1, "maximum": 8, "default": 2},
            "start": {"type": "integer", "minimum": 0, "maximum": 10},
        },
        "additionalProperties": False,
    }
    action_schemas = {
        "add": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 3}},
                "required": ["n"], "additionalProperties": False},
        "roll": {"type": "object", "properties": {"die": {"type": "integer", "minimum": 1, "maximum": 6}},
                 "additionalProperties": False},
        "note": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 40}},
                 "required": ["text"], "additionalProperties": False},
        "next_round": {"type": "object", "properties": {}, "additionalProperties": False},
        "set_paper": SET_PAPER_SCHEMA,
    }
    host_actions = ("next_round", "set_paper")
    random_action_fields = {"roll": ("die",)}
    random_option_fields = ("start",)
    # A note stands for a sealed choice (a vote): undo gives it back to its phone.
    sealed_choices = {"note": ("text",)}

    def player_limits(self, options: dict[str, Any]) -> tuple[int, int]:
        return options["min_players"], 8

    def draw_setup(self, players: list[str], options: dict[str, Any], rng: Rng) -> dict[str, Any]:
        out = dict(options)
        out.setdefault("start", rng.randrange(0, 3))
        return out

    def setup(self, players: list[str], options: dict[str, Any]) -> dict[str, Any]:
        return {"players": list(players), "scores": {p: options["start"] for p in players},
                "notes": {}, "turn": 0, "round": 1, "played": [], "target": options["target"],
                "winner": None}

    def draw(self, state: Any, action: Action, rng: Rng) -> Action:
        if action["type"] == "roll" and "die" not in action:
            return {**action, "die": rng.randrange(1, 7)}
        return action

    def legal_actions(self, state: Any, player: str | None) -> list[Action]:
        if player is None or state["winner"]:
            return []
        out: list[Action] = [{"type": "note", "text": ""}]
        if self._current(state) == player and player not in state["played"]:
            out += [{"type": "add", "n": n} for n in (1, 2, 3)] + [{"type": "roll"}]
        if len(state["played"]) == len(state["players"]):
            out.append({"type": "next_round"})  # host only: the server filters it for others
        return out

    def _current(self, state: Any) -> str:
        return state["players"][state["turn"] % len(state["players"])]

    def apply(self, state: Any, action: Action) -> tuple[Any, list[Event]]:
        t, me = action["type"], action["player"]
        s = {**state, "scores": dict(state["scores"]), "notes": dict(state["notes"]),
             "played": list(state["played"])}
        if s["winner"]:
            raise EngineError("game_over", "The game is over.")
        if t == "set_paper":
            # A dict state: the shared dataclass helper does not fit, same rules.
            if not action["host"]:
                raise EngineError("not_host", "Only the host can do that.")
            if action["seat"] not in s["players"] or action["seat"] in s.get("paper", []):
                raise EngineError("bad_action", "Not a seat that could go on paper.")
            s["paper"] = [*s.get("paper", []), action["seat"]]
            return s, [{"type": "paper_seat", "seat": action["seat"]}]
        if t == "note":
            s["notes"][me] = action["text"]
            return s, [{"type": "noted", "player": me}]
        if t == "next_round":
            if not action["host"]:
                raise EngineError("not_host", "Only the host starts the next round.")
            if len(s["played"]) < len(s["players"]):
                raise EngineError("round_not_over", "Not everyone has played this round.")
            s["round"] += 1
            s["played"] = []
            return s, [{"type": "round_started", "round": s["round"]}]
        if t not in ("add", "roll"):
            raise EngineError("bad_action", f"Unknown action {t!r}.")
        if self._current(s) != me or me in s["played"]:
            raise EngineError("not_your_turn", "It is not your turn.")
        n = action["n"] if t == "add" else action["die"]
        s["scores"][me] += n
        s["played"].append(me)
        s["turn"] += 1
        events: list[Event] = [{"type": "added", "player": me, "n": n}]
        if s["scores"][me] >= s["target"]:
            s["winner"] = me
            events.append({"type": "won", "player": me})
        return s, events

    def view(self, state: Any, player: str | None) -> dict[str, Any]:
        v: dict[str, Any] = {"scores": dict(state["scores"]), "turn": self._current(state),
                             "round": state["round"], "target": state["target"]}
        if player is not None and player in state["notes"]:
            v["my_note"] = state["notes"][player]
        if state["winner"]:
            v["result"] = {"winners": [state["winner"]]}
        return v

    def paper_seats(self, state: Any) -> tuple[str, ...]:
        return tuple(state.get("paper", ()))

    def public_players(self, state: Any) -> dict[str, dict[str, Any]]:
        return {p: {"score": s} for p, s in state["scores"].items()}

    def status(self, state: Any) -> dict[str, Any]:
        return {"round": state["round"], "over": state["winner"] is not None}

    def describe(self, event: Event, names: dict[str, str]) -> list[Part]:
        # A game without strings of its own: the platform's catch-all line.
        who = names.get(event.get("player", ""), "?")
        if event["type"] == "added":
            return [part("history.event", type=f"{who} +{event['n']}")]
        return [part("history.event", type=f"{who}: {event['type']}")]

    def dump(self, state: Any) -> Any:
        return state

    def load(self, data: Any) -> Any:
        return data


TOY = ToyEngine()
