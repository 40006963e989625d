"""The game state: frozen values (JSON through ``engines.codec``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines import codec
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


#: A vote cast sealed: its phone sent only a hash, and keeps the value until
#: every vote of the election is in (issue 38; docs/fairness.md, "Seals").
SEALED = "sealed"


@dataclass(frozen=True)
class Election:
    """A pending election; ``votes[i]`` is seat i's vote: None (not cast),
    ``SEALED`` (cast, its value still on its phone) or the value (opened, or
    cast in the open: a forced Yes, a skipped seat)."""

    candidate: str
    votes: tuple[str | None, ...]
    #: The seats whose vote was cast sealed, opened or not: their seals are
    #: the server's to reveal with the election (``fair.secrets``).
    sealed: tuple[int, ...] = field(default=(), metadata=codec.OMIT_DEFAULT)

    @property
    def opening(self) -> bool:
        """Every vote is in and some are still sealed: each phone opens its own."""
        return all(v is not None for v in self.votes) and SEALED in self.votes


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
    #: Seats whose secrets are held on paper (engines/base.py ``set_paper``): their goal
    #: card and vote are physical cards, entered only once the table has seen them.
    paper: tuple[str, ...] = field(default=(), metadata=codec.OMIT_DEFAULT)

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

    def on_paper(self, seat: int) -> bool:
        return self.players[seat] in self.paper


def new_round(
    config: Config,
    players: tuple[str, ...],
    round_no: int,
    start: int,
    used_cards: tuple[int, ...],
    results: tuple[RoundResult, ...],
    paper: tuple[str, ...] = (),
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
        paper=paper,
    )


def phones_voted(state: State) -> bool:
    """Every seat with a phone has voted in the election under way."""
    e = state.election
    return e is not None and all(
        v is not None for i, v in enumerate(e.votes) if not state.on_paper(i)
    )


def paper_waiting(state: State) -> list[str]:
    """The paper seats whose entry the game waits for now: a move on its turn, its
    vote card once the phones have voted, its goal card once the King is crowned."""
    out = []
    for i, p in enumerate(state.players):
        if not state.on_paper(i):
            continue
        turn = state.phase in (PLACEMENT, MOVEMENT) and state.turn == i
        e = state.election
        vote = state.phase == VOTE and e is not None and (
            (e.votes[i] is None and phones_voted(state))
            # Its vote sealed on the host's phone, which opens it now.
            or (e.opening and e.votes[i] == SEALED)
        )
        goal = state.phase == AWAITING_GOALS and state.goals[i] is None
        if turn or vote or goal:
            out.append(p)
    return out


def deck_left(state: State) -> list[int]:
    """Deal mode: the virtual cards nobody has drawn yet in this game (KU-13)."""
    if state.config.goal_mode != DEAL:
        return []
    used = set(state.used_cards)
    return [k for k in range(DECK_SIZE) if k not in used]


def put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    """``values`` with ``value`` at ``i``."""
    return values[:i] + (value,) + values[i + 1 :]
