"""The announce decides a draw without applying its action
(``change.fresh_draw``: the engine's ``fair_refusal``, the scope and index
``fair_draw`` names, ``fairness.scope_of``), where it used to apply the
action to a copy of the document. Over seeded random play-outs of every game
(phones anchoring chains and answering every draw, the host undoing now and
then; and a table where one seat plays on paper, its moves entered by the host
with ``as``), at every step, for every type that draws, as every seat, as the
host and not, on the document as stored and on one with no scope open (a draw
then opens one): the decision is the trial apply's, refusal code and message,
or scope, index and the scope it opens, or applied at once."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engines.base import Engine
from server.errors import ServiceError
from server.service import atrest, draws
from server.service.change import game_outcome
from server.store.keys import dumps, loads
from tests.server.conftest import Phone, open_table
from tests.server.service.test_fairness import sample_move, send, services
from tests.verify.games import OPTIONS, Chains, client

Decision = tuple[Any, ...]


def decision(engine: Engine, raw: str, me: str, host: bool, atype: str, state: Any, seats: list[str],
             trial: bool) -> Decision:
    """What ``decide`` makes of the action: a refusal, a draw held, or the
    action applied at once (``announce`` gave None or the copy's outcome)."""
    doc = loads(raw)
    try:
        out = draws.announce(engine, doc, me, host, atype, {}, random.Random(0), state, "r", lambda: seats,
                             3.0, None, lambda: loads(raw), trial=trial)
        if out is None:
            out = game_outcome(engine, doc, me, host, atype, {}, random.Random(0), state)
    except ServiceError as exc:
        return ("refused", exc.code, exc.message)
    p = draws.pending(out.doc)
    if not draws.is_pending_action(out.action) or p is None:
        return ("at once", out.action["type"])
    return ("held", p["scope"], p["index"], [x["label"] for x in p.get("opened", [])], p["action"],
            p["player"], p["host"], p["contributors"])


def without_scopes(raw: str) -> str:
    """The document with no scope open (a table stored before scopes were
    opened ahead; one that must draw anew after a reveal)."""
    doc = loads(raw)
    if doc.get("fair"):
        doc["fair"]["scopes"] = []
    return dumps(doc).decode()


def compare(app: Any, table: str, seen: Counter[str]) -> None:
    svc = services(app)
    raw = svc.store.load_raw(table)
    doc = loads(raw)
    engine: Engine = svc.engine(doc["game"])
    state = atrest.load_state(engine, doc) if doc["status"] != "lobby" else None
    seats = [s["id"] for s in doc["seats"]]
    for text in (raw, without_scopes(raw)):
        for atype in engine.random_action_fields:
            for me in seats:
                for host in (False, True):
                    new = decision(engine, text, me, host, atype, state, seats, trial=False)
                    old = decision(engine, text, me, host, atype, state, seats, trial=True)
                    assert new == old, (doc["version"], atype, me, host)
                    seen[new[0] if new[0] != "refused" else f"refused {new[1]}"] += 1


#: Each game's options under which it draws, and Camel Up's pyramid-only mode (legs that wait for next_leg).
CASES = [*((game, OPTIONS[game]) for game in sorted(OPTIONS)), ("camelup", {"mode": "pyramid"})]


@pytest.mark.parametrize(("game", "options"), CASES, ids=[f"{g}-{o.get('mode', 'default')}" for g, o in CASES])
@pytest.mark.parametrize("seed", range(2))
def test_the_announce_decides_as_the_trial_apply_did(redis_url: str, game: str, options: dict[str, Any],
                                                     seed: int) -> None:
    app, c = client(redis_url)
    rng = random.Random(seed)
    phones: list[Phone] = open_table(c, joiners=3, game=game, options=options)
    chains = Chains(app, phones, rng)
    chains.anchor()
    host = phones[0]
    seen: Counter[str] = Counter()
    compare(app, host.table, seen)  # the lobby: not_started
    assert host.act("start").status_code == 200
    chains.answer()
    for _ in range(600):
        compare(app, host.table, seen)
        move = chains.move(rng)
        if move is None:
            break
        if send(*move).status_code == 200:
            chains.answer()
            if rng.random() < 0.15 and host.act("undo").status_code == 200:
                compare(app, host.table, seen)  # undo keeps an outcome: the trial decides both
                phone, action = move
                send(phone, chains.seals.again(phone.get().json, phone.id, action))
                chains.answer()
        if services(app).store.load(host.table)["status"] == "over":
            compare(app, host.table, seen)
            break
    assert services(app).store.load(host.table)["status"] == "over"
    # Every kind of decision came up: drawn, refused for the rules' reasons, at once.
    assert seen["held"] and seen["refused not_started"] and seen["refused game_over"], seen
    assert sum(n for k, n in seen.items() if k.startswith("refused")) > seen["refused not_started"] + \
        seen["refused game_over"], seen


def paper_move(app: Any, host: Phone, rng: random.Random) -> tuple[Phone, dict[str, Any]] | None:
    """A random move the host may enter for a seat without a phone (its
    snapshot's ``proxies``, sampled as the engine samples a phone's)."""
    svc = services(app)
    doc = svc.store.load(host.table)
    engine: Engine = svc.engine(doc["game"])
    state = atrest.load_state(engine, doc)
    choices = [(seat, a) for seat, templates in host.get().json.get("proxies", {}).items()
               for t in templates if (a := engine.sample(state, seat, t, rng)) is not None]
    if not choices:
        return None
    seat, action = rng.choice(choices)
    return host, {**action, "_as": seat}


def send_as(phone: Phone, action: dict[str, Any]) -> Any:
    """``action`` sent by ``phone``, ``as`` the seat it names (``_as``), if any."""
    seat = action.get("_as")
    if seat is None:
        return send(phone, action)
    body = {"action": {k: v for k, v in action.items() if k != "_as"}, "request_id": f"as{random.getrandbits(48)}",
            "as": seat}
    return phone.client.post(f"/api/tables/{phone.table}/actions", json=body, headers=phone.auth)


@pytest.mark.parametrize(("game", "options"), CASES, ids=[f"{g}-{o.get('mode', 'default')}" for g, o in CASES])
def test_the_announce_decides_as_the_trial_apply_did_with_a_seat_on_paper(redis_url: str, game: str,
                                                                          options: dict[str, Any]) -> None:
    app, c = client(redis_url)
    rng = random.Random(7)
    phones: list[Phone] = open_table(c, joiners=3, game=game, options=options)
    host, paper = phones[0], phones[3]
    chains = Chains(app, phones, rng)
    chains.anchor()
    assert host.act("start").status_code == 200
    chains.answer()
    # The fourth player puts their phone away (their own consent): the host enters for them.
    assert paper.act("phoneless", player=paper.id).status_code == 200, paper.get().json
    on_phones = Chains(app, phones[:3], rng)
    on_phones.links, on_phones.used, on_phones.seals = chains.links, chains.used, chains.seals
    seen: Counter[str] = Counter()
    entered = offered = 0
    for _ in range(600):
        compare(app, host.table, seen)
        on_phones.live()
        moves = [m for m in (sample_move(app, phones[:3], rng, on_phones.seals), paper_move(app, host, rng)) if m]
        offered += any("_as" in a for _, a in moves)
        if not moves:
            break
        phone, action = rng.choice(moves)
        if send_as(phone, action).status_code == 200:
            entered += "_as" in action
            on_phones.answer()
        if services(app).store.load(host.table)["status"] == "over":
            compare(app, host.table, seen)
            break
    assert services(app).store.load(host.table)["status"] == "over"
    # Count Up's paper sheet is counted by the caller: nothing of it is entered.
    assert seen["held"] and (entered or not offered), (offered, entered, seen)
    if game != "countup":
        assert entered, (offered, seen)
