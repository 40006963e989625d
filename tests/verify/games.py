"""Honest games of every game, played through the HTTP API with the server's
real randomness, phones seeding as the app does and the host undoing now and
then (the undone action sent again at once, as a table does); and the ways a
server that lies could alter their proofs so that the proof alone still
replays (``proof.check`` passes) but the game's rules do not."""

from __future__ import annotations

import copy
import random
from typing import Any

from server import create_app
from tablemate_verify import Stream, replay
from tests.server.conftest import Phone, open_table
from tests.server.service.test_fairness import sample_move, send, services

OPTIONS = {"camelup": {}, "kingup": {"goalCardMode": "deal"},
           "countup": {"dangerZoneEnabled": True}}


def client(redis_url: str) -> tuple[Any, Any]:
    app = create_app({"REDIS_URL": redis_url, "FIXED_RANDOM": False,
                      "RATE_CREATE": 1000, "RATE_JOIN": 1000, "RATE_CODE": 1000,
                      "RATE_ACTIONS_SEAT": 10**6})
    return app, app.test_client()


def seed_all(phones: list[Phone], rng: random.Random) -> None:
    for p in phones:
        for scope in p.get().json.get("fair", {}).get("open", []):
            if p.id not in scope["seeded"]:
                assert p.act("seed", scope=scope["scope"], seed=f"{rng.getrandbits(256):064x}").status_code == 200


def play(redis_url: str, game: str, seed: int, undo: float = 0.15,
         options: dict[str, Any] | None = None, lobby_seeds: bool = True) -> tuple[dict[str, Any], int]:
    """A whole game (``game``, 4 seats, ``options`` or OPTIONS') to its end;
    returns its proof and how many actions were undone and sent again.
    ``lobby_seeds`` False: the host starts before any phone seeded the setup."""
    app, c = client(redis_url)
    rng = random.Random(seed)
    phones = open_table(c, joiners=3, game=game, options=OPTIONS[game] if options is None else options)
    host = phones[0]
    if lobby_seeds:
        seed_all(phones, rng)
    assert host.act("start").status_code == 200
    undone = 0
    for _ in range(600):
        seed_all(phones, rng)
        move = sample_move(app, phones, rng)
        if move is None:
            break
        if send(*move).status_code != 200:
            continue
        if rng.random() < undo and host.act("undo").status_code == 200:
            undone += 1
            assert send(*move).status_code == 200
        if services(app).store.load(host.table)["status"] == "over":
            break
    assert services(app).store.load(host.table)["status"] == "over"
    r = c.get(f"/api/tables/{host.table}/proof")
    assert r.status_code == 200
    return r.json, undone


_PROOFS: dict[tuple[str, int], tuple[dict[str, Any], int]] = {}


def honest(redis_url: str, game: str, seed: int = 1) -> tuple[dict[str, Any], int]:
    """``play``'s proof (a copy) and undo count, played once per test session."""
    if (game, seed) not in _PROOFS:
        _PROOFS[game, seed] = play(redis_url, game, seed)
    proof, undone = _PROOFS[game, seed]
    return copy.deepcopy(proof), undone


def revealed(proof: dict[str, Any], prefix: str) -> list[tuple[int, dict[str, Any]]]:
    """The revealed scopes whose name starts with ``prefix`` (``leg/``), with
    their places in the proof."""
    return [(i, s) for i, s in enumerate(proof["scopes"])
            if s["secret"] is not None and s["outcomes"] and s["label"].split("/", 3)[3].startswith(prefix)]


def rederive(proof: dict[str, Any], s: int, o: int) -> None:
    """Outcome ``o`` of scope ``s`` given the results its listed draws replay
    to, and its fields those results: what a server writes when it changes
    an outcome's public inputs and wants the proof to replay."""
    scope = proof["scopes"][s]
    out = scope["outcomes"][o]
    seeds = [e["seed"] for e in scope["seeds"][:out["seeds"]]]
    stream = Stream(scope["secret"], scope["label"], seeds, out["index"])
    for d in out["draws"]:
        d["result"] = replay(stream, d)
        if isinstance(d.get("field"), str):
            out["fields"][d["field"]] = d["result"]


def reorder(proof: dict[str, Any], prefix: str, d: int) -> dict[str, Any]:
    """Draw ``d``'s items reordered (of the first outcome where a reordering
    changes its result), the outcome re-derived."""
    for s, scope in revealed(proof, prefix):
        for o, out in enumerate(scope["outcomes"]):
            items = out["draws"][d]["items"]
            # Rotations: a few orders, one of which moves any result.
            for perm in (items[k:] + items[:k] for k in range(1, len(items))):
                p = copy.deepcopy(proof)
                p["scopes"][s]["outcomes"][o]["draws"][d]["items"] = list(perm)
                rederive(p, s, o)
                if p["scopes"][s]["outcomes"][o]["draws"][d]["result"] != out["draws"][d]["result"]:
                    return p
    raise AssertionError(f"no outcome of {prefix} changes with its items reordered")


def pad(proof: dict[str, Any], prefix: str) -> dict[str, Any]:
    """A padding choice before an outcome's first draw, the outcome re-derived."""
    s, scope = revealed(proof, prefix)[0]
    p = copy.deepcopy(proof)
    p["scopes"][s]["outcomes"][0]["draws"].insert(0, {"op": "choice", "items": ["a", "b", "c"], "result": None})
    rederive(p, s, 0)
    return p


def move(proof: dict[str, Any], prefix: str, index: int, o: int = -1) -> dict[str, Any]:
    """A scope's outcome ``o`` (its last) moved to ``index``, re-derived there."""
    s, scope = revealed(proof, prefix)[0]
    p = copy.deepcopy(proof)
    o = o % len(scope["outcomes"])
    p["scopes"][s]["outcomes"][o]["index"] = index
    rederive(p, s, o)
    return p


def reseeded(proof: dict[str, Any], prefix: str, change: Any) -> dict[str, Any]:
    """The first revealed ``prefix`` scope with two seeds or more, its seeds
    changed by ``change(scope)`` (which may set outcomes' ``seeds`` too), every
    outcome re-derived: what a server writes to pass a chosen seed off."""
    s, scope = next((s, x) for s, x in revealed(proof, prefix) if len(x["seeds"]) >= 2)
    p = copy.deepcopy(proof)
    change(p["scopes"][s])
    for o in range(len(scope["outcomes"])):
        rederive(p, s, o)
    return p
