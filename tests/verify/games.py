"""Honest games of every game, played through the HTTP API with the server's
real randomness, phones anchoring hash chains and answering every draw with
their next link as the app does, and the host undoing now and then (the undone action sent again at once, as a table does); and the ways a
server that lies could alter their proofs so that the proof alone still
replays (``proof.check`` passes) but the game's rules do not."""

from __future__ import annotations

import copy
import random
from typing import Any

from server import create_app
from tablemate_verify import Stream, replay
from tablemate_verify.chain import make_chain
from tests.sealed_votes import VoteSeals
from tests.server.conftest import Phone, open_table
from tests.server.service.test_fairness import sample_move, send, services

OPTIONS = {"camelup": {}, "kingup": {"goalCardMode": "deal"},
           "countup": {"dangerZoneEnabled": True}}


def client(redis_url: str) -> tuple[Any, Any]:
    app = create_app({"REDIS_URL": redis_url, "FIXED_RANDOM": False,
                      "RATE_CREATE": 1000, "RATE_JOIN": 1000, "RATE_CODE": 1000,
                      "RATE_ACTIONS_SEAT": 10**6})
    return app, app.test_client()


class Chains:
    """Every phone's hash chain (web/screens/fair-chain.js, as the app keeps
    it), its phone live (presence), answering each draw that waits for it."""

    def __init__(self, app: Any, phones: list[Phone], rng: random.Random) -> None:
        self.app, self.phones = app, phones
        self.links = {p.id: make_chain(256, f"{rng.getrandbits(256):064x}") for p in phones}
        self.used = dict.fromkeys(self.links, 0)
        #: The King Up votes the phones sealed, kept until they open them.
        self.seals = VoteSeals()

    def anchor(self) -> None:
        self.live()
        for p in self.phones:
            assert p.act("anchor", anchor=self.links[p.id][0], length=256).status_code == 200

    def live(self) -> None:
        for p in self.phones:
            services(self.app).store.presence.touch(p.table, f"{p.id}/s")

    def answer(self) -> None:
        """The links a pending draw waits for, as each phone sends its own."""
        pending = self.phones[0].get().json["fair"].get("pending")
        while pending is not None:
            for p in self.phones:
                if p.id in pending["waiting"]:
                    self.used[p.id] += 1
                    r = p.act("link", draw=pending["draw"], link=self.links[p.id][self.used[p.id]])
                    assert r.status_code == 200, r.json
            pending = self.phones[0].get().json["fair"].get("pending")

    def move(self, rng: random.Random) -> Any:
        """The phones live, then a random legal move of one (``sample_move``), or None."""
        self.live()
        return sample_move(self.app, self.phones, rng, self.seals)


def started(app: Any, c: Any, game: str, options: dict[str, Any], rng: random.Random,
            lobby: bool = True) -> tuple[list[Phone], Chains]:
    """A table of four phones started, each phone's chain anchored in the lobby
    and the draws of the start answered (``lobby`` False: the host starts before
    any phone anchored); its phones (the host first) and chains."""
    phones = open_table(c, joiners=3, game=game, options=options)
    chains = Chains(app, phones, rng)
    if lobby:
        chains.anchor()
    assert phones[0].act("start").status_code == 200
    if lobby:
        chains.answer()  # the starting board or first cards: drawn from every phone's link
    else:
        chains.anchor()
    return phones, chains


def play(redis_url: str, game: str, seed: int, undo: float = 0.15,
         options: dict[str, Any] | None = None, lobby: bool = True) -> tuple[dict[str, Any], int]:
    """A whole game (``game``, 4 seats, ``options`` or OPTIONS') to its end;
    returns its proof and how many actions were undone and sent again.
    ``lobby`` False: the host starts before any phone anchored its chain."""
    app, c = client(redis_url)
    rng = random.Random(seed)
    phones, chains = started(app, c, game, OPTIONS[game] if options is None else options, rng, lobby)
    host = phones[0]
    undone = 0
    for _ in range(600):
        move = chains.move(rng)
        if move is None:
            break
        if send(*move).status_code != 200:
            continue
        chains.answer()
        if rng.random() < undo and host.act("undo").status_code == 200:
            undone += 1
            phone, action = move
            assert send(phone, chains.seals.again(phone.get().json, phone.id, action)).status_code == 200
            chains.answer()
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
    links = [(e["seat"], e["link"]) for e in out["links"]] if "links" in out else None
    stream = Stream(scope["secret"], scope["label"], seeds, out["index"], links)
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


def relinked(proof: dict[str, Any], prefix: str, change: Any) -> dict[str, Any]:
    """The first revealed ``prefix`` scope with links, changed by
    ``change(scope)`` (its outcomes' ``links``, its ``chains``), every outcome
    re-derived: what a server writes to pass a chosen outcome off."""
    s, scope = next((s, x) for s, x in revealed(proof, prefix) if any(o.get("links") for o in x["outcomes"]))
    p = copy.deepcopy(proof)
    change(p["scopes"][s])
    for o in range(len(scope["outcomes"])):
        rederive(p, s, o)
    return p
