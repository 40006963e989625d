"""What the server keeps (in the table document) and what it publishes.

The records are plain JSON (TypedDicts), so they live in the table document
as they are. ``publish`` builds the public proof field by field: a secret, a
salt or a sealed value is in it only once its scope or seal is revealed, and
a drawn outcome's draws (which may hold a private card) only then too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NotRequired, TypedDict

from tablemate_verify import canon
from tablemate_verify.chain import ChainEntry, LinkEntry
from tablemate_verify.derive import (
    Draw,
    OutcomeRng,
    check_hex32,
    check_label,
    commitment,
    new_secret,
)
from tablemate_verify.proof import FORMAT
from tablemate_verify.seal import seal_hash


class FairError(ValueError):
    """A refused step, with a stable code for the API's error envelope."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class SeedEntry(TypedDict):
    seat: str | None
    seed: str
    #: The table version that accepted it: it is in force for every outcome after.
    v: NotRequired[int]


class OutcomeRecord(TypedDict):
    index: int
    #: How many of the scope's seeds (the first ones) were in force.
    seeds: int
    draws: list[Draw]
    #: The action's random fields as the game logged them (draws link to them).
    fields: NotRequired[dict[str, Any]]
    #: The table version of the action that drew it.
    v: NotRequired[int]
    #: Given as it is, not drawn (a test server's fixed random outcome: no
    #: draws, ``fields`` what it was given); every check flags it.
    fixed: NotRequired[bool]
    #: The phones' links that went into it (``tablemate-outcome/2``; then
    #: ``seeds`` is 0).
    links: NotRequired[list[LinkEntry]]


#: The seat and link pairs an outcome is derived from (``Stream``'s ``links``).
def link_pairs(links: list[LinkEntry]) -> list[tuple[str, str]]:
    return [(e["seat"], e["link"]) for e in links]


class ScopeRecord(TypedDict):
    label: str
    secret: str
    commitment: str
    seeds: list[SeedEntry]
    outcomes: list[OutcomeRecord]
    revealed: bool
    #: The phones' chains its outcomes' links belong to.
    chains: NotRequired[list[ChainEntry]]


class SealRecord(TypedDict):
    label: str
    hash: str
    #: None: a seal made on a phone, not opened yet (the server never had it).
    salt: str | None
    value: Any
    revealed: bool
    #: Taken back before its reveal (an undone vote): it stays sealed for good,
    #: and the choice sent again is sealed under a label of its own.
    retracted: NotRequired[bool]
    #: A server that keeps sealed values encrypted at rest (server/service/
    #: atrest.py) holds salt and value here until the reveal (salt, value: None).
    at_rest: NotRequired[dict[str, str]]


def open_scope(label: str, secret: str | None = None) -> ScopeRecord:
    """A scope with a fresh secret (``secret``: one the caller drew, e.g. from
    a seeded test generator): publish its ``commitment`` before any outcome."""
    secret = new_secret() if secret is None else check_hex32(secret, "secret")
    return {"label": check_label(label), "secret": secret, "commitment": commitment(secret),
            "seeds": [], "outcomes": [], "revealed": False}


def add_seed(scope: ScopeRecord, seat: str | None, seed: Any, v: int | None = None) -> SeedEntry:
    """Adds a phone's seed to an open scope; one per seat and scope.
    ``v``: the table version that accepts it (recommended: the proof then
    shows that it counted for every later outcome)."""
    if scope["revealed"]:
        raise FairError("scope_closed", f"{scope['label']} is over; its secret is revealed.")
    try:
        seed = check_hex32(seed, "seed")
    except ValueError as e:
        raise FairError("bad_seed", str(e)) from e
    if seat is not None and any(s["seat"] == seat for s in scope["seeds"]):
        raise FairError("seed_already_given", f"{seat} already gave a seed for {scope['label']}.")
    entry: SeedEntry = {"seat": seat, "seed": seed}
    if v is not None:
        entry["v"] = v
    scope["seeds"].append(entry)
    return entry


def rng_for(scope: ScopeRecord, index: int, links: list[LinkEntry] | None = None) -> OutcomeRng:
    """The Rng for outcome ``index``. An index derived before (an undone roll
    redone) keeps the seeds or links it had, so the same public inputs give
    the same outcome; a new index takes ``links`` (the phones' parts of this
    draw) or, without, every seed given so far."""
    if scope["revealed"]:
        raise FairError("scope_closed", f"{scope['label']} is over; its secret is revealed.")
    linked = drawn_links(scope, index)
    if linked is not None or links is not None:
        pairs = link_pairs(linked if linked is not None else links or [])
        return OutcomeRng.of(scope["secret"], scope["label"], [], index, pairs)
    before = [o["seeds"] for o in scope["outcomes"] if o["index"] == index]
    k = before[0] if before else len(scope["seeds"])
    seeds = [s["seed"] for s in scope["seeds"][:k]]
    return OutcomeRng.of(scope["secret"], scope["label"], seeds, index)


def drawn_links(scope: ScopeRecord, index: int) -> list[LinkEntry] | None:
    """The links outcome ``index`` was drawn with before (an undone draw), or None."""
    return next((o["links"] for o in scope["outcomes"] if o["index"] == index and "links" in o), None)


def keep(scope: ScopeRecord, rng: OutcomeRng, fields: dict[str, Any] | None = None,
         v: int | None = None, links: list[LinkEntry] | None = None) -> OutcomeRecord:
    """Records what ``rng`` drew (once per index and draws: the same outcome
    redone is not listed twice). Returns the record.

    ``fields``: the action's random fields as the game logs them. Each is
    linked to the first draw not yet linked whose result is its value, in
    the order given (a draw the caller linked already keeps its ``field``),
    so the check also proves the game logged what was drawn."""
    draws = [dict(d) for d in rng.draws]
    record: OutcomeRecord = {"index": rng.stream.index, "seeds": len(rng.stream.seeds), "draws": draws}
    if fields is not None:
        record["fields"] = canon.plain(fields)
        for name, value in record["fields"].items():
            d = next((d for d in draws if "field" not in d and canon.same(d["result"], value)), None)
            if d is not None:
                d["field"] = name
    if v is not None:
        record["v"] = v
    if rng.stream.links is not None:
        record["links"] = drawn_links(scope, record["index"]) or [dict(e) for e in links or []]  # type: ignore[misc]
    for old in scope["outcomes"]:
        if old["index"] == record["index"] and _bare(old["draws"]) == _bare(draws):
            return old
    scope["outcomes"].append(record)
    return record


def _bare(draws: list[Draw]) -> list[Draw]:
    return [{k: v for k, v in d.items() if k != "field"} for d in draws]


def seal_value(label: str, value: Any) -> SealRecord:
    """``value`` sealed with a fresh salt; publish its ``hash`` at once."""
    salt = new_secret()
    return {"label": check_label(label), "hash": seal_hash(label, salt, value), "salt": salt,
            "value": canon.plain(value), "revealed": False}


def publish(table: str, game: str, scopes: Iterable[ScopeRecord],
            seals: Iterable[SealRecord]) -> dict[str, Any]:
    """The body of ``GET /api/tables/<id>/proof``: everything a phone or
    ``python -m tablemate_verify`` needs, and nothing secret before its reveal."""
    return {"format": FORMAT, "table": table, "game": game,
            "scopes": [_public_scope(s) for s in scopes],
            "sealed": [_public_seal(s) for s in seals]}


def _public_scope(s: ScopeRecord) -> dict[str, Any]:
    open_ = not s["revealed"]
    seeds = [{k: e[k] for k in ("seat", "seed", "v") if k in e} for e in s["seeds"]]
    outcomes = []
    for o in s["outcomes"]:
        out: dict[str, Any] = {"index": o["index"], "seeds": o["seeds"]}
        if "v" in o:
            out["v"] = o["v"]
        if "links" in o:
            # Public from the start: a link tells nothing without the secret.
            out["links"] = [dict(e) for e in o["links"]]
        if not open_:
            out["draws"] = o["draws"]
            if "fields" in o:
                out["fields"] = o["fields"]
            if o.get("fixed"):
                out["fixed"] = True
        outcomes.append(out)
    body = {"label": s["label"], "commitment": s["commitment"],
            "secret": None if open_ else s["secret"], "seeds": seeds, "outcomes": outcomes}
    if "chains" in s:
        body["chains"] = [dict(c) for c in s["chains"]]
    return body


def _public_seal(s: SealRecord) -> dict[str, Any]:
    if not s["revealed"]:
        out: dict[str, Any] = {"label": s["label"], "hash": s["hash"], "salt": None}
        if s.get("retracted"):
            out["retracted"] = True
        return out
    return {"label": s["label"], "hash": s["hash"], "salt": s["salt"], "value": s["value"]}
