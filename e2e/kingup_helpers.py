"""Helpers of the King Up! end-to-end tests: seat tokens, a replica of the game
in the engine (the expected scores), and a recorder that checks every byte a phone
receives for another seat's secrets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from playwright.sync_api import Page

from e2e.traffic import Traffic  # noqa: F401  (re-exported for the tests)
from engines.kingup import ENGINE

CHARS = frozenset("ABCDEFGHIJKLM")
TITLES = {"ko": "킹업!", "en": "King Up!"}


def token_of(page: Page, table: str) -> str:
    return page.evaluate("t => localStorage.getItem(`tablemate.token.${t}`)", table)


# --- the expected game --------------------------------------------------------------


class Replica:
    """The same table in the engine: the test applies every action a phone sends."""

    def __init__(self, players: list[str], options: dict[str, Any], host: str) -> None:
        self.host = host
        self.state = ENGINE.setup(players, ENGINE.normalize_options(options))

    def apply(self, player: str, action: dict[str, Any]) -> None:
        full = {**action, "player": player, "host": player == self.host}
        self.state, _ = ENGINE.apply(self.state, full)

    def view(self, player: str | None = None) -> dict[str, Any]:
        return json.loads(json.dumps(ENGINE.view(self.state, player)))

    def legal(self, player: str) -> list[dict[str, Any]]:
        return ENGINE.legal_actions(self.state, player)

    def totals(self) -> dict[str, int]:
        return {p: f["total"] for p, f in ENGINE.public_players(self.state).items()}


# --- secrecy ------------------------------------------------------------------------


def _six_lists(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], frozenset[str]]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _six_lists(v, (*path, k))
    elif isinstance(obj, list):
        if len(obj) == 6 and all(isinstance(c, str) and c in CHARS for c in obj) and len(set(obj)) == 6:
            yield path, frozenset(obj)
        for i, v in enumerate(obj):
            yield from _six_lists(v, (*path, i))


def _scored_rounds(msg: Any) -> set[int]:
    """Rounds whose goal cards this message may show: the scored ones it carries."""
    rounds: set[int] = set()
    if not isinstance(msg, dict):
        return rounds
    view = msg.get("view")
    if isinstance(view, dict):
        rounds |= {r["round"] for r in view.get("round_results") or []}
    for e in msg.get("events") or []:
        if isinstance(e, dict) and e.get("type") == "round_scored":
            rounds.add(e["round"])
    return rounds


_OWN_ONLY = {"no_left", "can_vote_no", "can_vote", "vote", "goal_card"}
_ELECTION_KEYS = {"candidate", "nominator", "voted", "votes_cast", "voters", "opening"}


def _walk(obj: Any, path: tuple[Any, ...], problems: list[str]) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = (*path, k)
            if k == "sealed" and str(obj.get("format", "")).startswith("tablemate-proof/") and isinstance(v, list):
                # The fair dice proof: a vote's sealed value only once its salt is revealed.
                for i, seal in enumerate(v):
                    if isinstance(seal, dict) and seal.get("salt") is None and "value" in seal:
                        problems.append(f"{'/'.join(map(str, (*p, i)))}: a sealed value before its reveal")
                continue
            mine = p[:2] == ("view", "me") or p[:1] == ("legal",)
            if k in _OWN_ONLY and not mine:
                problems.append(f"{'/'.join(map(str, p))} outside view.me")
            if k == "goal" and not (mine or "round_results" in p):
                problems.append(f"{'/'.join(map(str, p))}: a goal card outside view.me and the results")
            if k == "votes":
                ok_place = path[-1:] == ("last_election",) or obj.get("type") == "votes_revealed"
                if not ok_place or not isinstance(v, dict) or None in v.values():
                    problems.append(f"{'/'.join(map(str, p))}: votes before the reveal")
            if k == "election" and isinstance(v, dict) and set(v) - _ELECTION_KEYS:
                problems.append(f"{'/'.join(map(str, p))} shows {sorted(set(v) - _ELECTION_KEYS)}")
            _walk(v, p, problems)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _walk(v, (*path, i), problems)


def leaks(traffic: Traffic, goals: dict[int, dict[str, list[str]]]) -> list[str]:
    """What one phone received that it must not have: another seat's goal card before
    that round was scored, any No count, vote or card number but its own."""
    me = traffic.seat[0]
    owner = {frozenset(g): (r, p) for r, by_seat in goals.items() for p, g in by_seat.items()}
    found = []
    for where, msg in traffic.messages:
        if not isinstance(msg, (dict, list)):
            continue
        problems: list[str] = []
        _walk(msg, (), problems)
        if isinstance(msg, dict) and isinstance(msg.get("view"), dict) and msg["view"].get("me"):
            if msg["view"]["me"].get("player") != me:
                problems.append(f"view.me is {msg['view']['me'].get('player')}, not {me}")
        scored = _scored_rounds(msg)
        for path, chars in _six_lists(msg):
            if "castle" in path or "leftovers" in path:
                continue  # a level or the unplaced tray, not a card
            hit = owner.get(chars)
            if hit and hit[1] != me and hit[0] not in scored:
                problems.append(f"{hit[1]}'s round-{hit[0]} card at {'/'.join(map(str, path))}")
        found += [f"{where}: {p}" for p in problems]
    return found
