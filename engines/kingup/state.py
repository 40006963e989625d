"""The game state: frozen values, and their JSON form (``dump``/``load``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.kingup.constants import CHARACTERS, DECK_SIZE, NO_CARDS, PLACEMENTS, UNPLACED
from engines.kingup.options import DEAL, FULL, Config

# Phases. awaiting_goals: the King is crowned (or the board entered) but some goal cards
# are still missing, so the round cannot be scored yet.
PLACEMENT = "placement"
MOVEMENT = "movement"
VOTE = "vote"
AWAITING_GOALS = "awaiting_goals"
SCORE_ENTRY = "score_entry"
SCORED = "scored"
OVER = "over"


@dataclass(frozen=True)
class Election:
    """A pending election; ``votes[i]`` is seat i's secret vote or None."""

    candidate: str
    votes: tuple[str | None, ...]


@dataclass(frozen=True)
class Revealed:
    """The last election of the round, once its votes are public."""

    candidate: str
    votes: tuple[str, ...]
    crowned: bool


@dataclass(frozen=True)
class RoundResult:
    """What a scored round leaves behind; points and scores are derived (``rules``)."""

    round: int
    positions: tuple[int, ...]
    goals: tuple[tuple[str, ...], ...]
    #: Virtual-deck card numbers (deal mode), else all None.
    cards: tuple[int | None, ...]
    #: Seat that nominated the King; None in score-only mode.
    crown: int | None


@dataclass(frozen=True)
class State:
    config: Config
    players: tuple[str, ...]
    round: int
    phase: str
    #: Position of each character, in CHARACTERS order (see constants).
    positions: tuple[int, ...]
    #: Seat index of this round's start player (R5).
    start: int
    turn: int | None
    crown: int | None
    #: Each seat's goal card this round (sorted letters), None until recorded/drawn. Secret.
    goals: tuple[tuple[str, ...] | None, ...]
    #: Deal mode: each seat's card number this round. Secret.
    cards: tuple[int | None, ...]
    #: Deal mode: every card dealt so far in the game (KU-13: no replacement). Secret.
    used_cards: tuple[int, ...]
    #: No cards left per seat. Secret, never revealed (R4).
    no_left: tuple[int, ...]
    election: Election | None
    last_election: Revealed | None
    results: tuple[RoundResult, ...]

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def placements_each(self) -> int:
        return PLACEMENTS[self.n]

    @property
    def no_each(self) -> int:
        return self.config.no_cards_for(self.n) if self.n in NO_CARDS else 0

    def seat(self, player: str) -> int:
        return self.players.index(player)


def new_round(
    config: Config,
    players: tuple[str, ...],
    round_no: int,
    start: int,
    used_cards: tuple[int, ...],
    results: tuple[RoundResult, ...],
) -> State:
    """R2-R5, R22: a cleared board, fresh goal cards and No cards."""
    n = len(players)
    full = config.play_mode == FULL
    return State(
        config=config,
        players=players,
        round=round_no,
        phase=PLACEMENT if full else SCORE_ENTRY,
        positions=(UNPLACED,) * len(CHARACTERS),
        start=start,
        turn=start if full else None,
        crown=None,
        goals=(None,) * n,
        cards=(None,) * n,
        used_cards=used_cards,
        no_left=(config.no_cards_for(n),) * n,
        election=None,
        last_election=None,
        results=results,
    )


def deck_left(state: State) -> list[int]:
    """Deal mode: the virtual cards nobody has drawn yet in this game (KU-13)."""
    if state.config.goal_mode != DEAL:
        return []
    used = set(state.used_cards)
    return [k for k in range(DECK_SIZE) if k not in used]


def _opt_tuple(value: list[Any] | None) -> tuple[Any, ...] | None:
    return None if value is None else tuple(value)


def dump(state: State) -> dict[str, Any]:
    c = state.config
    return {
        "config": {
            "play_mode": c.play_mode,
            "goal_mode": c.goal_mode,
            "rounds": c.rounds,
            "no_cards": list(c.no_cards),
            "tie_break": c.tie_break,
            "tie_level0": c.tie_level0,
            "zero33_round": c.zero33_round,
            "first_seat": c.first_seat,
            "names": [list(pair) for pair in c.names],
        },
        "players": list(state.players),
        "round": state.round,
        "phase": state.phase,
        "positions": list(state.positions),
        "start": state.start,
        "turn": state.turn,
        "crown": state.crown,
        "goals": [None if g is None else list(g) for g in state.goals],
        "cards": list(state.cards),
        "used_cards": list(state.used_cards),
        "no_left": list(state.no_left),
        "election": None
        if state.election is None
        else {"candidate": state.election.candidate, "votes": list(state.election.votes)},
        "last_election": None
        if state.last_election is None
        else {
            "candidate": state.last_election.candidate,
            "votes": list(state.last_election.votes),
            "crowned": state.last_election.crowned,
        },
        "results": [
            {
                "round": r.round,
                "positions": list(r.positions),
                "goals": [list(g) for g in r.goals],
                "cards": list(r.cards),
                "crown": r.crown,
            }
            for r in state.results
        ],
    }


def load(data: dict[str, Any]) -> State:
    c = data["config"]
    no_cards = c["no_cards"]
    election = data["election"]
    last = data["last_election"]
    return State(
        config=Config(
            play_mode=c["play_mode"],
            goal_mode=c["goal_mode"],
            rounds=c["rounds"],
            no_cards=(no_cards[0], no_cards[1], no_cards[2], no_cards[3]),
            tie_break=c["tie_break"],
            tie_level0=c["tie_level0"],
            zero33_round=c["zero33_round"],
            first_seat=c["first_seat"],
            names=tuple((ko, en) for ko, en in c["names"]),
        ),
        players=tuple(data["players"]),
        round=data["round"],
        phase=data["phase"],
        positions=tuple(data["positions"]),
        start=data["start"],
        turn=data["turn"],
        crown=data["crown"],
        goals=tuple(_opt_tuple(g) for g in data["goals"]),
        cards=tuple(data["cards"]),
        used_cards=tuple(data["used_cards"]),
        no_left=tuple(data["no_left"]),
        election=None
        if election is None
        else Election(candidate=election["candidate"], votes=tuple(election["votes"])),
        last_election=None
        if last is None
        else Revealed(
            candidate=last["candidate"], votes=tuple(last["votes"]), crowned=last["crowned"]
        ),
        results=tuple(
            RoundResult(
                round=r["round"],
                positions=tuple(r["positions"]),
                goals=tuple(tuple(g) for g in r["goals"]),
                cards=tuple(r["cards"]),
                crown=r["crown"],
            )
            for r in data["results"]
        ),
    )
