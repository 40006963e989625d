"""A table's proof as phase 2's server would build it with the record API
(a Camel Up-like leg revealed, the next leg open, dealt cards, sealed sheets
and votes), with fixed secrets and salts so every expectation is exact; and
the ways a cheating server could alter it."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from tablemate_verify import (
    ScopeRecord,
    SealRecord,
    add_seed,
    commitment,
    keep,
    publish,
    rng_for,
    seal_hash,
)
from tablemate_verify.chain import LinkEntry, make_chain

DICE = ["blue", "green", "orange", "yellow", "white"]
FACES = [1, 1, 2, 2, 3, 3]
GREY = [["white", 1], ["white", 2], ["white", 3], ["black", 1], ["black", 2], ["black", 3]]
LEG1, LEG2, GOALS = "t/Ab3x/leg/1", "t/Ab3x/leg/2", "t/Ab3x/goals"
SHEET, VOTE, OPEN_VOTE = "t/Ab3x/round/1/sheet/p1", "t/Ab3x/round/1/vote/p2", "t/Ab3x/round/2/vote/p3"


def scope(label: str, n: int) -> ScopeRecord:
    secret = f"{n:02x}" * 32
    return {"label": label, "secret": secret, "commitment": commitment(secret),
            "seeds": [], "outcomes": [], "revealed": False}


def sealed(label: str, value: Any, n: int, revealed: bool = True) -> SealRecord:
    salt = f"{n:02x}" * 32
    return {"label": label, "hash": seal_hash(label, salt, value), "salt": salt, "value": value,
            "revealed": revealed}


def roll_leg(leg: ScopeRecord, rolls: int, v: int) -> None:
    left = list(DICE)
    for index in range(rolls):
        rng = rng_for(leg, index)
        die = rng.choice(left)
        value = rng.choice(FACES)
        keep(leg, rng, {"die": die, "value": value}, v=v + index)
        left.remove(die)


def records(held_back: bool = False, unseeded: bool = False) -> tuple[list[ScopeRecord], list[SealRecord]]:
    leg1, leg2, goals = scope(LEG1, 1), scope(LEG2, 2), scope(GOALS, 3)
    add_seed(leg1, "p1", "a1" * 32, v=2)
    if not held_back:
        add_seed(leg1, "p2", "b2" * 32, v=3)
    roll_leg(leg1, 5, v=4)
    if held_back:
        # A server that lies: the seed it accepted at version 3 never counted.
        add_seed(leg1, "p2", "b2" * 32, v=3)
    leg1["revealed"] = True
    add_seed(leg2, "p1", "c3" * 32, v=10)
    roll_leg(leg2, 2, v=11)
    if not unseeded:
        add_seed(goals, "p2", "d4" * 32)
    for index in range(3):
        rng = rng_for(goals, index)
        card = rng.choice([tuple(g) for g in GREY])
        rng.sample(range(12), 2)
        rng.draws[0]["field"] = ["color", "value"]
        keep(goals, rng, {"color": card[0], "value": card[1]})
    goals["revealed"] = True
    seals = [sealed(SHEET, {"numbers": [3, 14, 15, 22, 41], "name": "민준"}, 4),
             sealed(VOTE, "no", 5), sealed(OPEN_VOTE, "yes", 6, revealed=False)]
    return [leg1, leg2, goals], seals


def proof(held_back: bool = False, unseeded: bool = False) -> dict[str, Any]:
    """``unseeded``: the goal cards dealt before any phone's seed (the server's alone)."""
    scopes, seals = records(held_back, unseeded)
    return publish("Ab3x", "camelup", scopes, seals)


def _other(items: list[Any], value: Any) -> Any:
    return next(x for x in items if x != value)


def _draw(p: dict[str, Any], s: int, o: int, d: int) -> dict[str, Any]:
    draw: dict[str, Any] = p["scopes"][s]["outcomes"][o]["draws"][d]
    return draw


def _set(p: dict[str, Any], s: int, o: int, d: int) -> None:
    draw = _draw(p, s, o, d)
    draw["result"] = _other(draw["items"], draw["result"])


def _field(p: dict[str, Any]) -> None:
    fields = p["scopes"][0]["outcomes"][2]["fields"]
    fields["value"] = _other(FACES, fields["value"])


def _seeds_back(p: dict[str, Any]) -> None:
    p["scopes"][0]["outcomes"][4]["seeds"] = 1


def _seal(p: dict[str, Any]) -> None:
    p["sealed"][1]["value"] = "yes"


def _secret(p: dict[str, Any]) -> None:
    p["scopes"][2]["secret"] = "ee" * 32


def _items(p: dict[str, Any]) -> None:
    # The pyramid said to hold other dice than it did: the choice replays differently.
    draw = _draw(p, 0, 1, 0)
    draw["items"] = list(reversed(draw["items"]))


#: name → (alteration, the first mismatch's code and where).
TAMPERED: dict[str, tuple[Callable[[dict[str, Any]], None], str, dict[str, Any]]] = {
    "draw": (lambda p: _set(p, 0, 3, 1), "draw_mismatch", {"scope": LEG1, "index": 3, "draw": 1}),
    # A value with no canonical form (a float) is a mismatch too, not a crash.
    "float": (lambda p: _draw(p, 0, 0, 0).update(result=1.5), "draw_mismatch",
              {"scope": LEG1, "index": 0, "draw": 0}),
    "items": (_items, "draw_mismatch", {"scope": LEG1, "index": 1, "draw": 0}),
    "field": (_field, "field_mismatch", {"scope": LEG1, "index": 2, "draw": 1}),
    "seeds_back": (_seeds_back, "seeds_went_back", {"scope": LEG1, "index": 4}),
    "secret": (_secret, "secret_mismatch", {"scope": GOALS}),
    "seal": (_seal, "seal_mismatch", {"seal": VOTE}),
    # An outcome a test gave (fixed random) proves nothing, whatever its draws say.
    "fixed": (lambda p: p["scopes"][0]["outcomes"][1].update(fixed=True), "outcome_fixed",
              {"scope": LEG1, "index": 1}),
}


def tampered(name: str) -> dict[str, Any]:
    p = copy.deepcopy(proof())
    TAMPERED[name][0](p)
    return p


LEG3 = "t/Ab3x/g1/leg/1"
#: Camel Up's dice, in the rules' order (docs/fairness.md, "The draw schedule").
CU_DICE = ["blue", "green", "yellow", "red", "purple", "grey"]
#: Two phones' chains (tops fixed): each reveals one link per roll.
CHAINS = {"p1": make_chain(8, "e1" * 32), "p2": make_chain(8, "f2" * 32)}


def linked(cheat: str | None = None, secret: int = 7) -> dict[str, Any]:
    """A leg drawn from the phones' chain links (outcome/2), revealed; with
    ``cheat`` the server's way of choosing among outcomes: ``dropped`` (p2's
    link of roll 1 left out, the roll derived without it), ``swapped`` (p2's
    link of roll 1 replaced by one of the server's), ``anchor`` (p1's chain
    listed with another anchor)."""
    leg = scope(LEG3, secret)
    leg["chains"] = [{"seat": s, "anchor": c[0], "length": 8, "v": 20} for s, c in CHAINS.items()]
    left = list(CU_DICE)
    for index in range(3):
        links: list[LinkEntry] = [{"seat": s, "link": c[index + 1], "anchor": c[0]} for s, c in CHAINS.items()]
        if (index == 1 and cheat == "dropped") or (index == 2 and cheat == "dropped_last"):
            links = links[:1]
        if index == 1 and cheat == "swapped":
            links[1]["link"] = "99" * 32
        rng = rng_for(leg, index, links)
        die = rng.choice(left)
        fields = {"die": die, "color": rng.choice(["white", "black"]) if die == "grey" else None}
        keep(leg, rng, {**fields, "value": rng.choice([1, 2, 3])}, v=21 + index, links=links)
        left.remove(die)
    leg["revealed"] = True
    if cheat == "anchor":
        leg["chains"][0]["anchor"] = make_chain(8, "e3" * 32)[0]
    body = publish("Ab3x", "camelup", [leg], [])
    body.update(version=30, seeded=[], starts=[{"game": 1, "players": 2, "options": {}}])
    return body


def phone_export(seat: str = "p2", revealed: int = 3) -> dict[str, Any]:
    """What ``seat``'s phone kept of ``linked()``'s leg: its chain's revealed
    links and the commitment it was shown."""
    chain = CHAINS[seat]
    return {"format": "tablemate-phone/1", "table": "Ab3x", "seat": seat,
            "chains": [{"anchor": chain[0], "length": 8, "links": chain[1:revealed + 1]}],
            "missed": [], "shown": {LEG3: commitment(f"{7:02x}" * 32)}}


#: cheat → the first mismatch's code and where.
LINK_CHEATS: dict[str, tuple[str, dict[str, Any]]] = {
    "dropped": ("link_mismatch", {"scope": LEG3, "index": 2}),
    "swapped": ("link_mismatch", {"scope": LEG3, "index": 1}),
    "anchor": ("link_mismatch", {"scope": LEG3, "index": 0}),
}
