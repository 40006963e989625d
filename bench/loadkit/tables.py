"""The tables and the driver: real games over every registered game, made over
HTTP with every seat's phone (each anchoring its hash chain, as the web client
does), and actions drawn from the seats' own offers (free inputs filled as a
person would) sent at a fixed rate, at most one in flight per table."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.loadkit.phones import CHAIN_LENGTH, Phone, Stats, Table
from tablemate_verify.chain import make_chain
from tests import api_client
from tests.sealed_votes import VOTE_TYPES

PLATFORM = {"start", "seats", "rename", "remove", "host", "undo", "play_again"}
# Seats per table by game, within each game's limits.
SEATS = {"camelup": (3, 8), "kingup": (3, 6), "countup": (3, 8)}


def http(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    return api_client.call(base, method, path, body, token, timeout=30)


def fill(game: str, template: dict[str, Any], view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A concrete action from a template; free inputs filled like a person would."""
    t = template["type"]
    if t in PLATFORM:
        return None
    if t == "skip":
        # The host's stall tool: offered with the time it opens (the snapshot's
        # step_in), and never needed here, where every seat's phone plays.
        return None
    if game == "kingup" and t == "goal":
        return {**template, "characters": rng.sample("ABCDEFGHIJKLM", 6)}
    if game == "kingup" and t == "score_round":
        return None
    if game == "camelup" and t in ("set_stack", "copy_choice"):
        return None  # host corrections and partnership choices are rare, hand-made acts
    if game == "countup":
        if t == "numbers":
            lo, hi = view["number_range"]
            banned = set(view["restricted_digits"])
            pool = [n for n in range(lo, hi + 1) if n % 10 not in banned]
            return {**template, "numbers": sorted(rng.sample(pool, 5))}
        if t in ("restriction", "danger", "declare", "bonus"):
            return None
        if t == "call" and template.get("until"):
            return None  # keep rounds going: one number per action
    return template


def setup_tables(bases: list[str], phones: int, seed: int, affinity: bool = False,
                 only: frozenset[str] = frozenset(), chains: bool = True) -> list[Table]:
    """Tables of real games over ``phones`` phones. A table's phones go to
    the instances in turn (every change crosses instances), or with
    ``affinity`` all to the table's own instance (as a load balancer with
    table affinity would put them): an instance's actions are then its tables'.
    Without ``chains`` the phones anchor none (a build from before issue 38,
    timed with --root, knows no chains)."""
    rng = random.Random(seed)
    games = [g["name"] for g in http(bases[0], "GET", "/api/games")["games"]
             if g["name"] in SEATS and (not only or g["name"] in only)]
    plans: list[tuple[str, int]] = []
    total = 0
    while total < phones:
        game = games[len(plans) % len(games)]
        lo, hi = SEATS[game]
        n = min(rng.randint(lo, hi), max(lo, phones - total))
        plans.append((game, n))
        total += n

    def make(i: int) -> Table:
        game, n = plans[i]
        base = bases[i % len(bases)]
        created = http(base, "POST", "/api/tables", {"game": game, "name": "Host"})
        table = Table(created["table"], game)
        seats = [(created["player"]["id"], created["player"]["token"])]
        def at(k: int) -> str:
            return base if affinity else bases[(i + k) % len(bases)]

        for k in range(n - 1):
            j = http(at(k + 1), "POST", f"/api/tables/{table.id}/players", {"name": f"P{k + 2}"})
            seats.append((j["player"]["id"], j["player"]["token"]))
        http(base, "POST", f"/api/tables/{table.id}/actions",
             {"action": {"type": "start"}, "request_id": "start"}, seats[0][1])
        table.phones = [Phone(table, pid, tok, at(k)) for k, (pid, tok) in enumerate(seats)]
        if chains:
            # As the web client at a table: each phone anchors its own chain.
            for p in table.phones:
                p.chain = make_chain(CHAIN_LENGTH)
                http(p.base, "POST", f"/api/tables/{table.id}/actions",
                     {"action": {"type": "anchor", "anchor": p.chain[0], "length": CHAIN_LENGTH},
                      "request_id": f"anchor-{p.pid}"}, p.token)
        return table

    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(make, range(len(plans))))


@dataclass
class Schedule:
    """What the fixed-rate schedule did: the slots it dropped after stalls, its worst lateness."""
    driven_s: float = 0.0
    sent: int = 0
    skipped: int = 0
    max_late_s: float = 0.0


#: Request ids of every driven action: unique across the warm-up and the
#: measured run (a reused id is a replay, which the server answers from its record).
_request_ids = itertools.count()


async def driver(tables: list[Table], rate: float, duration: float, stats: Stats, seed: int,
                 action_timeout: float = 10.0, prefer: str = "") -> Schedule:
    rng = random.Random(seed)
    ids = _request_ids
    start = time.perf_counter()
    tick = 1.0 / rate
    next_at = start
    sched = Schedule()
    in_flight: set[int] = set()
    by_index = dict(enumerate(tables))
    last_sweep = start
    while time.perf_counter() - start < duration:
        now = time.perf_counter()
        if now < next_at:
            await asyncio.sleep(next_at - now)
            now = time.perf_counter()
        late = now - next_at
        sched.max_late_s = max(sched.max_late_s, late)
        # A stall must not turn into a burst the schedule never asked for: the
        # slots it missed are dropped and counted, not fired back to back.
        if late >= tick:
            missed = int(late / tick)
            sched.skipped += missed
            next_at += missed * tick
        next_at += tick
        if now - last_sweep > 0.5:
            last_sweep = now
            for i in list(in_flight):
                t = by_index[i]
                if not t.busy:
                    in_flight.discard(i)
                elif now - t.sent_at > action_timeout:
                    stats.error("action_timeout")
                    t.busy = False
                    in_flight.discard(i)
        for _ in range(50):  # find an idle table with something to do
            i = rng.randrange(len(tables))
            table = tables[i]
            if table.busy:
                continue
            options = [(p, a) for p in table.phones for t in p.legal
                       if (a := table.seals.complete({"fair": p.fair, "view": p.view}, p.pid, t)
                           if t["type"] in VOTE_TYPES else fill(table.game, t, p.view, rng)) is not None]
            if not options:
                continue
            # --prefer: that action type whenever it is legal (e.g. a Camel Up roll).
            options = [o for o in options if o[1]["type"] == prefer] or options
            phone, action = rng.choice(options)
            table.busy, table.want, table.drawing, table.sent_at = True, 0, 0, time.perf_counter()
            in_flight.add(i)
            try:
                await phone.ws.send(json.dumps({"type": "action", "action": action,
                                                "request_id": f"b{next(ids)}"}))
                sched.sent += 1
            except Exception:
                stats.error("send_failed")
                table.busy = False
            break
    sched.driven_s = time.perf_counter() - start
    # Let in-flight actions land.
    deadline = time.perf_counter() + 5
    while any(t.busy for t in tables) and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
    unfinished = [t for t in tables if t.busy]
    if unfinished:
        stats.errors["unfinished"] = len(unfinished)
        for t in unfinished[:3]:
            print(f"unfinished: {t.game} want={t.want} versions={[p.version for p in t.phones]}", file=sys.stderr)
    return sched
