"""Helpers of the fair dice end-to-end tests (issue 31), for Chromium and
WebKit alike: tables of each game played through the HTTP API up to a
reveal, a revealed roll, sheet or vote changed in Redis behind the server's
back, and the standalone checker run against the live server."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import redis

from e2e.conftest import ROOT
from tablemate_verify import Stream, replay
from tests import api_client
from tests.sealed_votes import vote_all

_rid = [0]


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    return api_client.call(base, method, path, body, token)


def act(base: str, table: str, token: str, action: dict[str, Any]) -> dict[str, Any]:
    _rid[0] += 1
    body = {"action": action, "request_id": f"fair-{time.time_ns()}-{_rid[0]}"}
    out: dict[str, Any] = call(base, "POST", f"/api/tables/{table}/actions", body, token)
    return out


def snap(base: str, table: str, token: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = call(base, "GET", f"/api/tables/{table}", token=token)
    return out


def new_table(base: str, game: str, names: list[str], options: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """A table and its seats' tokens, host first, still in its lobby."""
    body = call(base, "POST", "/api/tables", {"game": game, "name": names[0], "options": options or {}})
    table, tokens = body["table"], [body["player"]["token"]]
    for n in names[1:]:
        tokens.append(call(base, "POST", f"/api/tables/{table}/players", {"name": n})["player"]["token"])
    return table, tokens


def wait_for(check: Callable[[], Any], what: str, timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def anchored_by(base: str, table: str, seats: list[str]) -> bool:
    """Whether each of ``seats`` has a phone chain the table knows (issue 38)."""
    return set(seats) <= set(snap(base, table)["fair"].get("chains", {}))


def start(base: str, table: str, tokens: list[str]) -> None:
    """The host starts; a start that draws waits for the phones' links (their pages answer)."""
    act(base, table, tokens[0], {"type": "start"})
    wait_for(lambda: snap(base, table)["status"] != "lobby", "the start's draw")


def roll_leg(base: str, table: str, tokens: list[str]) -> None:
    """Camel Up: the seat whose turn it is rolls, five times (one leg)."""
    for _ in range(5):
        waiting = snap(base, table)["view"]["waiting"]
        act(base, table, tokens[int(waiting[0][1:]) - 1], {"type": "pyramid"})
        # The roll waits for the phones' links (issue 38): their pages answer by themselves.
        wait_for(lambda: "pending" not in snap(base, table)["fair"], "every phone's link for the roll")


def count_round(base: str, table: str, tokens: list[str]) -> None:
    """Count Up: every phone locks a sheet its view allows, the host counts to the end."""
    rng = random.Random(5)
    for token in tokens:
        view = snap(base, table, token)["view"]
        lo, hi = view["number_range"]
        banned = set(view["restricted_digits"])
        pool = [n for n in range(lo, hi + 1) if n % 10 not in banned]
        act(base, table, token, {"type": "numbers", "numbers": sorted(rng.sample(pool, 5))})
    act(base, table, tokens[0], {"type": "call", "until": "end"})


def vote_once(base: str, table: str, tokens: list[str]) -> None:
    """King Up: characters placed and moved until a King is nominated, then every seat votes yes."""
    rng = random.Random(3)
    for _ in range(400):
        snaps = [snap(base, table, t) for t in tokens]
        if snaps[0]["view"].get("phase") == "vote":
            break
        for token, s in zip(tokens, snaps, strict=True):
            moves = [a for a in s["legal"] if a["type"] in ("place", "move")]
            if moves:
                act(base, table, token, rng.choice(moves))
                break
    else:
        raise AssertionError("no election came")
    seats = {snap(base, table, t)["me"]: t for t in tokens}
    # Sealed and opened as the app does: a vote in the open is refused (seal_required).
    vote_all(dict.fromkeys(seats, "yes"), lambda seat: snap(base, table, seats[seat]),
             lambda seat, action: act(base, table, seats[seat], action))


def tamper(redis_url: str, table: str, what: str, change: Callable[[dict[str, Any]], None]) -> None:
    """Changes, in Redis, the revealed record whose label ends with ``what`` in
    the log entry that revealed it: what a server that cheats after the fact does."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    key = f"tm:{{{table}}}:log"
    for i, raw in enumerate(r.lrange(key, 0, -1)):
        entry = json.loads(raw)
        for kind in ("scopes", "seals"):
            for rec in entry.get("fair", {}).get(kind, []):
                if rec["label"].endswith(what):
                    change(rec)
                    r.lset(key, i, json.dumps(entry))
                    return
    raise AssertionError(f"no revealed {what} in the log of {table}")


def other_roll(scope: dict[str, Any]) -> None:
    """A leg's third roll says another die left the pyramid."""
    draw = scope["outcomes"][2]["draws"][0]
    draw["result"] = next(x for x in draw["items"] if x != draw["result"])


def link_left_out(scope: dict[str, Any]) -> None:
    """A server that chose among outcomes: the leg's last roll drawn again
    without the phones' links (re-derived, so every draw replays, and no later
    link of the proof skips one: only the phones' own records can tell)."""
    out = scope["outcomes"][-1]
    out["links"] = []
    stream = Stream(scope["secret"], scope["label"], [], out["index"], [])
    # Drawn again by the rules (docs/fairness.md, the draw schedule): the die
    # from those left, its colour if grey, its value.
    plan = [("die", out["draws"][0]["items"])]
    die = replay(stream, {"op": "choice", "items": plan[0][1]})
    drawn = [("die", plan[0][1], die)]
    if die == "grey":
        drawn.append(("color", ["white", "black"], replay(stream, {"op": "choice", "items": ["white", "black"]})))
    drawn.append(("value", [1, 2, 3], replay(stream, {"op": "choice", "items": [1, 2, 3]})))
    out["draws"] = [{"op": "choice", "items": items, "result": r, "field": f} for f, items, r in drawn]
    out["fields"] = {**{k: None for k in out["fields"] if k == "color"}, **{f: r for f, _, r in drawn}}


def other_sheet(seal: dict[str, Any]) -> None:
    seal["value"]["numbers"][0] += 1


def other_vote(seal: dict[str, Any]) -> None:
    seal["value"]["vote"] = "no" if seal["value"]["vote"] == "yes" else "yes"


def verify(base: str, table: str, *more: str) -> subprocess.CompletedProcess[str]:
    """``python -m tablemate_verify <the table's URL>``, as anyone would run it
    (``more``: e.g. ``--phone export.json``)."""
    return subprocess.run([sys.executable, "-m", "tablemate_verify", f"{base}/t/{table}", *more], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


#: The three tampered tables: game, seat names, options, how to reach a reveal,
#: what to change, and what the warning names (English). Every vote is sealed on
#: its phone and opened at the reveal: the second seat's is the one changed.
CASES: dict[str, dict[str, Any]] = {
    "roll": {"game": "camelup", "names": ["Ada", "Grace", "Alan"], "options": {}, "play": roll_leg,
             "what": "/leg/1", "change": other_roll, "says": "Leg 1 · outcome 3"},
    "sheet": {"game": "countup", "names": ["Ada", "Grace", "Alan"], "options": {}, "play": count_round,
              "what": "/sheet/p2", "change": other_sheet, "says": "Round 1 · Grace's sheet"},
    "vote": {"game": "kingup", "names": ["Ada", "Grace", "Alan"], "options": {}, "play": vote_once,
             "what": "/p2", "change": other_vote, "says": "Round 1 · Grace's vote"},
}
