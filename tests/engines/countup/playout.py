"""A random table: plays whole games through ``legal_actions`` with seeded
randomness, checking the invariants after every action. Shared by the play-out
and secrecy tests (loaded from the conftest)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from engines.base import EngineError
from engines.countup import ENGINE
from engines.countup.count import restricted, round_max
from engines.countup.state import State
from tests.words import check_parts


def random_options(rng: random.Random) -> dict[str, Any]:
    opts: dict[str, Any] = {
        "sheetMode": rng.choice(["phone", "phone", "paper"]),
        "restrictionSource": rng.choice(["deck", "manual"]),
        "dangerZoneEnabled": rng.random() < 0.5,
        "finalCountDeclarations": rng.random() < 0.3,
        "endAtMarker20": rng.random() < 0.8,
    }
    if rng.random() < 0.3:
        opts["bonus"] = [[rng.randrange(0, 6) for _ in range(5)] for _ in range(4)]
    if rng.random() < 0.2:
        opts["restrictedDigitsByPlayers"] = {str(k): rng.randrange(0, 5) for k in range(3, 8)}
    if rng.random() < 0.2:
        opts["restrictionDeck"] = [rng.sample(range(10), 3) for _ in range(rng.randrange(1, 4))]
    if rng.random() < 0.2:
        lo = rng.randrange(1, 40)
        opts["dangerZones"] = [[lo, lo + rng.randrange(0, 20)]]
    return opts


def legal_numbers(state: State) -> list[int]:
    banned = restricted(state)
    return [n for n in range(1, round_max(state)) if n % 10 not in banned]


def random_sheet(state: State, rng: random.Random) -> list[int]:
    pool = legal_numbers(state)
    # A narrow pool now and then makes collisions (and long solo runs) common.
    if rng.random() < 0.4:
        start = rng.randrange(0, max(1, len(pool) - 12))
        pool = pool[start:start + 12]
    return rng.sample(pool, 5)


def reference_round(
    sheets: dict[str, list[int]], top: int, end20: bool, final: bool,
    danger: tuple[int, int] | None,
) -> tuple[dict[str, int], dict[str, list[tuple[int, bool]]], int, str]:
    """R9 written out plainly, independent of the engine's code."""
    markers = dict.fromkeys(sheets, 0)
    xs: dict[str, list[tuple[int, bool]]] = {p: [] for p in sheets}
    leader, advancing = None, False
    for c in range(1, top + 1):
        stop = False
        if advancing and markers[leader] < 20:
            markers[leader] += 1
            stop = end20 and markers[leader] == 20
        if stop and not final:
            return markers, xs, c, "marker20"
        s = [p for p in sheets if c in sheets[p]]
        if len(s) == 1:
            leader, advancing = s[0], True
        elif len(s) > 1:
            void = danger is not None and danger[0] <= c <= danger[1]
            for p in s:
                xs[p].append((c, void))
            advancing = False
        if stop:
            return markers, xs, c, "marker20"
    return markers, xs, top, "max"


def check_state(before: State, after: State, action: dict[str, Any],
                events: list[dict[str, Any]]) -> None:
    data = ENGINE.dump(after)
    assert ENGINE.load(json.loads(json.dumps(data))) == after
    for p in (None, *after.players):
        json.dumps(ENGINE.view(after, p))
        json.dumps(ENGINE.legal_actions(after, p))
    json.dumps(ENGINE.public_players(after))
    json.dumps(events)
    for ev in events:
        check_parts(ENGINE.describe(ev, {p: p.upper() for p in after.players}))
    assert all(0 <= s.marker <= 20 for s in after.seats)
    # The sum of the stints is the marker.
    for p, s in zip(after.players, after.seats, strict=True):
        assert sum(1 for c in after.calls if c.advanced == p) == s.marker
    top = round_max(after)
    if after.end == "max":
        assert after.count == top
    elif after.end == "marker20":
        assert after.options.end_at_marker20
        assert after.seats[after.index(after.calls[-1].advanced)].marker == 20
    elif after.phase == "count":
        assert after.count < top
        assert not after.options.end_at_marker20 or after.final_pending or all(
            s.marker < 20 for s in after.seats
        )
    assert 1 <= ENGINE.status(after)["round"] <= 4


class RandomTable:
    """One seeded game; ``steps()`` yields (before, after, action, events)."""

    def __init__(self, seed: int, players: int | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.rng = random.Random(seed)
        n = players or self.rng.randrange(3, 13)
        self.players = [f"p{i}" for i in range(1, n + 1)]
        self.host = self.players[0]
        opts = ENGINE.normalize_options(
            options if options is not None else random_options(self.rng)
        )
        opts = ENGINE.draw_setup(self.players, opts, self.rng)
        self.state: State = ENGINE.setup(self.players, opts)
        self.paper: dict[str, list[int]] = {}
        self.paper_round = 0
        self.rounds_played = 0

    def _paper_sheets(self) -> dict[str, list[int]]:
        if self.paper_round != self.state.round:
            self.paper = {p: random_sheet(self.state, self.rng) for p in self.players}
            self.paper_round = self.state.round
        return self.paper

    def fill(self, template: dict[str, Any], player: str) -> dict[str, Any] | None:
        """A concrete action from a template, or None to skip it."""
        rng, state = self.rng, self.state
        action = {**template, "player": player, "host": player == self.host}
        kind = template["type"]
        if kind == "numbers":
            action["numbers"] = random_sheet(state, rng)
        elif kind == "restriction":
            action["digits"] = rng.sample(range(10), 3)
        elif kind == "danger":
            lo = rng.randrange(1, 50)
            action["range"] = [lo, lo + rng.randrange(0, 15)]
        elif kind == "declare":
            sheets = self._paper_sheets()
            who = [p for p in self.players if state.count in sheets[p]]
            if not who:
                return None
            action["players"] = who
        elif kind == "bonus":
            target = template.get("seat", player)
            hint = ENGINE.view(state, player)["bonus"][target]["hint"]
            action["points"] = hint if hint is not None else rng.randrange(0, 10)
        elif kind == "caller" and rng.random() < 0.9:
            return None
        return action

    def pick(self) -> dict[str, Any]:
        state = self.state
        # During a phone-mode count only the host and the caller can move the
        # game on; asking every seat would only slow the play-outs down.
        quiet = state.phase == "count" and state.options.sheet_mode == "phone"
        seats = [self.host, state.caller] if quiet and state.caller else (
            [self.host] if quiet else self.players
        )
        templates = [
            (p, t) for p in seats for t in ENGINE.legal_actions(state, p)
            if not t.get("host") or p == self.host
        ]
        # Paper mode: record every hand raised before calling on.
        for p, t in templates:
            if t["type"] == "declare":
                action = self.fill(t, p)
                if action is not None:
                    return action
        calls = [(p, t) for p, t in templates if t["type"] == "call"]
        if calls and self.rng.random() < 0.85:
            p, t = calls[0] if self.rng.random() < 0.8 else calls[-1]
            return {**t, "player": p, "host": p == self.host}
        while True:
            p, t = self.rng.choice(templates)
            action = self.fill(t, p)
            if action is not None:
                return action

    def steps(self, limit: int = 2000, guard: bool = True
              ) -> Iterator[tuple[State, State, dict[str, Any], list]]:
        """``guard`` also proves that apply leaves its input untouched."""
        for _ in range(limit):
            if ENGINE.status(self.state)["over"]:
                return
            before = self.state
            snapshot = ENGINE.dump(before) if guard else None
            action = ENGINE.draw(before, self.pick(), self.rng)
            after, events = ENGINE.apply(before, action)
            if guard:
                assert ENGINE.dump(before) == snapshot
            if after.rounds != before.rounds:
                self.rounds_played += 1
            self.state = after
            yield before, after, action, events
        raise AssertionError("the game did not end")

    def try_bad_sheet(self) -> None:
        """A wrong sheet is refused and changes nothing."""
        state = self.state
        p = next((p for p, s in zip(state.players, state.seats, strict=True)
                  if s.numbers is None), None)
        if p is None or state.phase != "entry":
            return
        good = random_sheet(state, self.rng)
        bad = self.rng.choice([good[:4], good + [good[0]], [*good[:4], good[0]],
                               [*good[:4], round_max(state)], [*good[:4], 0]])
        try:
            ENGINE.apply(state, {"type": "numbers", "player": p, "host": False, "numbers": bad})
        except EngineError:
            return
        raise AssertionError(f"accepted {bad}")


def check_round_against_reference(before: State, after: State) -> None:
    """A phone-mode round, scored: markers and X cells as the plain R9 says."""
    if after.options.sheet_mode != "phone" or len(after.rounds) == len(before.rounds):
        return
    rec = after.rounds[-1]
    sheets = {p: list(s.numbers or ()) for p, s in zip(after.players, rec.seats, strict=True)}
    opts = after.options
    danger = rec.danger if opts.danger_enabled else None
    markers, xs, last, end = reference_round(
        sheets, round_max(after), opts.end_at_marker20, opts.final_count_declarations, danger
    )
    assert (rec.last, rec.end) == (last, end)
    for p, s in zip(after.players, rec.seats, strict=True):
        assert s.marker == markers[p]
        assert [(x.number, x.voided) for x in s.x_cells] == xs[p]
        row = opts.bonus[rec.number - 1]
        assert s.score == s.marker + sum(row[x.slot] for x in s.x_cells if not x.voided)
        assert s.star == (s.score >= 20)


def check_result(state: State) -> None:
    """R18-R20 recomputed from the public figures."""
    pp = ENGINE.public_players(state)
    result = ENGINE.view(state, None)["result"]
    twice = [p for p in state.players if pp[p]["stars"] >= 2]
    if twice:
        assert result["ended_by"] == "two_stars"
        candidates = twice
    else:
        assert result["ended_by"] == "last_round" and len(state.rounds) == 4
        candidates = list(state.players)

    def key(p: str) -> tuple[int, list[int]]:
        return pp[p]["total"], sorted(pp[p]["round_scores"], reverse=True)

    best = max(key(p) for p in candidates)
    assert result["winners"] == [p for p in candidates if key(p) == best]
