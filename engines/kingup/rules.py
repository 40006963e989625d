"""Pure rule helpers: the castle, legal choices, scoring and the final standings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.kingup.config import DEAL, FULL, SURVIVORS, Config
from engines.kingup.constants import (
    CHARACTERS,
    DECK_SIZE,
    ELIMINATED,
    INDEX,
    LEVEL_CAP,
    PLACE_LEVELS,
    PLACEMENTS,
    THRONE,
    TOP_LEVEL,
    UNPLACED,
    value,
)
from engines.kingup.state import (
    OVER,
    PLACEMENT,
    SCORE_ENTRY,
    RoundResult,
    State,
)


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


def count_at(positions: Sequence[int], pos: int) -> int:
    return sum(1 for p in positions if p == pos)


def chars_at(positions: Sequence[int], pos: int) -> list[str]:
    return [c for c, p in zip(CHARACTERS, positions, strict=True) if p == pos]


def leftovers(players: int) -> int:
    """R7: characters that go to level 0 after placement.

    >>> [leftovers(n) for n in (3, 4, 5, 6)]
    [1, 1, 3, 1]
    """
    return len(CHARACTERS) - players * PLACEMENTS[players]


def level_counts(positions: Sequence[int]) -> list[int]:
    """Characters on each level 0..5 and the throne (index 6).

    >>> level_counts([0, 0, 3, THRONE, ELIMINATED, UNPLACED])
    [2, 0, 0, 1, 0, 0, 1]
    """
    counts = [0] * (THRONE + 1)
    for p in positions:
        if 0 <= p <= THRONE:
            counts[p] += 1
    return counts


def legal_placements(positions: Sequence[int]) -> list[tuple[str, int]]:
    """R6: (character, level) pairs a placement may choose."""
    counts = level_counts(positions)
    open_levels = [lv for lv in PLACE_LEVELS if counts[lv] < LEVEL_CAP]
    return [(c, lv) for c in chars_at(positions, UNPLACED) for lv in open_levels]


def target(pos: int) -> int:
    """R10: where a character on ``pos`` (0..5) moves; the throne from level 5."""
    return THRONE if pos == TOP_LEVEL else pos + 1


def _movable(pos: int, counts: Sequence[int]) -> bool:
    if not 0 <= pos <= TOP_LEVEL:
        return False
    # The throne is always empty while characters move (R10).
    return pos == TOP_LEVEL or counts[pos + 1] < LEVEL_CAP


def can_move(positions: Sequence[int], char: str) -> bool:
    return _movable(positions[INDEX[char]], level_counts(positions))


def legal_moves(positions: Sequence[int]) -> list[str]:
    counts = level_counts(positions)
    return [c for c, p in zip(CHARACTERS, positions, strict=True) if _movable(p, counts)]


def points(goal: Sequence[str], positions: Sequence[int]) -> dict[str, int]:
    """R19: each goal character's points."""
    return {c: value(positions[INDEX[c]]) for c in goal}


def final_score(config: Config, round_no: int, raw: int) -> int:
    """R20 / KU-7 / KU-14: a 0 in the rule's round becomes 33."""
    return 33 if raw == 0 and round_no == config.zero33_round else raw


def raw_scores(result: RoundResult) -> list[int]:
    return [sum(points(g, result.positions).values()) for g in result.goals]


def scores(config: Config, result: RoundResult) -> list[int]:
    return [final_score(config, result.round, raw) for raw in raw_scores(result)]


def totals(state: State) -> list[int]:
    sums = [0] * state.n
    for result in state.results:
        for i, s in enumerate(scores(state.config, result)):
            sums[i] += s
    return sums


def survivors(config: Config, goal: Sequence[str], positions: Sequence[int]) -> int:
    """R24 / KU-6: goal characters still on the board (level 0 per the option)."""
    lowest = 0 if config.tie_level0 else 1
    return sum(1 for c in goal if positions[INDEX[c]] == THRONE or positions[INDEX[c]] >= lowest)


def game_result(state: State) -> dict[str, Any] | None:
    """R23-R24: winners once the game is over, with the tie-break explained."""
    if state.phase != OVER:
        return None
    sums = totals(state)
    best = max(sums)
    tied = [i for i, t in enumerate(sums) if t == best]
    winners = tied
    tie_break: dict[str, Any] | None = None
    if len(tied) > 1:
        tie_break = {"rule": state.config.tie_break, "tied": [state.players[i] for i in tied]}
        if state.config.tie_break == SURVIVORS:
            last = state.results[-1]
            counts = {i: survivors(state.config, last.goals[i], last.positions) for i in tied}
            most = max(counts.values())
            winners = [i for i in tied if counts[i] == most]
            tie_break["survivors"] = {state.players[i]: k for i, k in counts.items()}
            tie_break["counts_level0"] = state.config.tie_level0
    return {
        "winners": [state.players[i] for i in winners],
        "totals": {p: t for p, t in zip(state.players, sums, strict=True)},
        "tie_break": tie_break,
        "shared": len(winners) > 1,
    }


def board_problem(state: State, positions: Sequence[int]) -> str | None:
    """Why an entered final board (score-only mode) cannot be a round's end, if it cannot."""
    if count_at(positions, THRONE) != 1:
        return "Exactly one character must be on the throne: every round ends with a King."
    for level in range(1, TOP_LEVEL + 1):
        # Level 5 keeps at most 3: the King has just left it.
        cap = LEVEL_CAP - 1 if level == TOP_LEVEL else LEVEL_CAP
        if count_at(positions, level) > cap:
            return f"Level {level} holds at most {cap} characters at the end of a round."
    spare = leftovers(state.n)
    if count_at(positions, 0) > spare:
        return f"Level 0 holds at most {spare} with {state.n} players (only the left-overs)."
    no_cards = state.n * state.no_each
    if count_at(positions, ELIMINATED) > no_cards:
        return f"At most {no_cards} characters can be eliminated: each takes a No card."
    return None


def deck_left(state: State) -> list[int]:
    """Deal mode: the virtual cards nobody has drawn yet in this game (KU-13)."""
    if state.config.goal_mode != DEAL:
        return []
    used = set(state.used_cards)
    return [k for k in range(DECK_SIZE) if k not in used]
