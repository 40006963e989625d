"""Checkable randomness and sealed choices at a live table (docs/fairness.md).

The engines name their scopes and sealed choices (``Engine.fair_*``); this
module keeps the records (``tablemate_verify.record``) in the table document's
``fair`` and is the only code that touches them:

- ``begin``: a new game's lobby opens the setup scope (create, play again);
- ``setup_rng`` / ``draw_rng``: the Rng a start or a game action draws with,
  the outcome derived from its scope's secret, the phones' chain links
  (``draws.py``) and its index;
- ``settle``: after every change that moved the game, the outcome kept, the
  scopes the game now needs opened, those it is done with revealed, choices
  locked in secret sealed, and those now public revealed with the game's own
  value (so a value changed after its seal shows at the reveal);
- what phones and checkers see of these records (the snapshot's part, the
  ``draw`` frame's, the proof): ``fairview.py``.

What is revealed leaves the document for the log entry of the change that
revealed it (``LogEntry.fair``): the document every action reads and writes
holds only what is still open. A secret, a salt or a sealed value reaches no
view, event or history line; the proof shows each only once revealed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engines.base import Engine, Rng
from server.fairdoc import FairDoc, FairLog
from server.model import TableDoc
from server.service import atrest
from tablemate_verify import (
    OutcomeRecord,
    OutcomeRng,
    ScopeRecord,
    SealRecord,
    keep,
    new_secret,
    open_scope,
    rng_for,
    seal_value,
)
from tablemate_verify.canon import plain
from tablemate_verify.chain import LinkEntry

#: The scope of the draws that set a game up (``draw_setup``), round 0.
SETUP = "setup"


@dataclass
class Draw:
    """One action's outcome in a scope: drawn by ``rng``, or (``rng`` None)
    sent as it is, a test server's fixed random outcome that nothing proves.
    ``fields``: the action's random fields as logged (set after the draw)."""

    scope: ScopeRecord
    index: int
    rng: OutcomeRng | None
    fields: dict[str, Any] = field(default_factory=dict)
    #: The phones' links it was drawn with (``draws.py``), or None: seeds.
    links: list[LinkEntry] | None = None


def game_no(doc: TableDoc) -> int:
    """Which game of the table this is (1, then one more per play again)."""
    return 1 + len(doc.get("rematches", ()))


def label(doc: TableDoc, name: str) -> str:
    return f"t/{doc['id']}/g{game_no(doc)}/{name}"


def name_of(doc: TableDoc, lab: str) -> str:
    """The game's name of a scope (``leg/2``): its label less the table's and
    game's prefix, and less a ``.k`` a scope drawn again after its reveal took."""
    rest = lab.removeprefix(label(doc, ""))
    head, _, tail = rest.rpartition(".")
    return head if head and tail.isdigit() else rest


def secret_from(rng: Rng) -> str:
    """A scope's secret: from the OS CSPRNG, or from a seeded generator a test
    or benchmark gave the table (so its outcomes repeat)."""
    if isinstance(rng, random.SystemRandom) or not isinstance(rng, random.Random):
        return new_secret()
    return bytes(rng.randrange(256) for _ in range(32)).hex()


def _fair(doc: TableDoc) -> FairDoc | None:
    return doc.get("fair")


def _open(doc: TableDoc, fair: FairDoc, name: str, rng: Rng) -> ScopeRecord:
    scope = new_scope(label(doc, name), rng)
    fair["scopes"].append(scope)
    return scope


def begin(engine: Engine, doc: TableDoc, rng: Rng) -> None:
    """A game's lobby: the setup scope opens now when the game's start draws
    (its board, its first cards), so phones seed it before the start."""
    before = _fair(doc)
    fair: FairDoc = {"scopes": [], "seals": [], "closed": [], "revealed": before["revealed"] if before else 0}
    if before is not None and "chains" in before:
        fair["chains"] = before["chains"]  # a phone's chain is the table's, game after game
    doc["fair"] = fair
    if engine.random_option_fields:
        _open(doc, fair, SETUP, rng)


def scope_of(doc: TableDoc, fair: FairDoc, name: str) -> tuple[str, ScopeRecord | None]:
    """The label of the scope a draw the game names ``name`` takes now, and
    that scope if it is open (None: the draw opens it, ``_scope``). Its own
    label, unless ``name`` was revealed already (an undone outcome that no
    longer applies drawn anew: the old secret is public, so it must not
    decide): then the first ``name.k`` not closed, the one a pending draw
    opened (``draws.make`` put it back) being the one its links were given
    for; one revealed or dropped is never used again (its commitment was shown)."""
    lab = label(doc, name)
    if name in fair["closed"] and not any(s["label"] == lab for s in fair["scopes"]):
        k = 2
        while f"{name}.{k}" in fair["closed"]:
            k += 1
        lab = label(doc, f"{name}.{k}")
    return lab, next((s for s in fair["scopes"] if s["label"] == lab), None)


def new_scope(lab: str, rng: Rng) -> ScopeRecord:
    """A scope ``lab`` with a fresh secret, not yet in any document."""
    return open_scope(lab, secret_from(rng))


def _scope(doc: TableDoc, fair: FairDoc, name: str, rng: Rng) -> ScopeRecord:
    """The scope a draw of ``name`` takes (``scope_of``), opened now if it is
    not open (a table from before this feature, or a fresh ``name.k``)."""
    lab, scope = scope_of(doc, fair, name)
    if scope is None:
        scope = new_scope(lab, rng)
        fair["scopes"].append(scope)
    return scope


def setup_rng(engine: Engine, doc: TableDoc, rng: Rng) -> tuple[Rng, Draw | None]:
    """The Rng ``draw_setup`` takes at the start: outcome 0 of the setup scope."""
    fair = _fair(doc)
    if fair is None or not engine.random_option_fields:
        return rng, None
    scope = _scope(doc, fair, SETUP, rng)
    sent = {k: doc["options"][k] for k in engine.random_option_fields if doc["options"].get(k) is not None}
    if sent:
        return rng, Draw(scope, 0, None, sent)
    links = _links_now(fair)
    outcome = rng_for(scope, 0, links)
    return outcome, Draw(scope, 0, outcome, links=links)


def draw_rng(engine: Engine, doc: TableDoc, state: Any, action: dict[str, Any], sent: bool,
             rng: Rng) -> tuple[Rng, Draw | None]:
    """The Rng a game action draws with: its scope's outcome at its index
    (the same index gives an undone roll back the same), or ``rng`` for an
    action the game draws nothing for."""
    fair = _fair(doc)
    where = engine.fair_draw(state, action) if fair is not None else None
    if fair is None or where is None:
        return rng, None
    scope = _scope(doc, fair, where[0], rng)
    if sent:
        return rng, Draw(scope, where[1], None)
    links = _links_now(fair)
    outcome = rng_for(scope, where[1], links)
    return outcome, Draw(scope, where[1], outcome, links=links)


def _links_now(fair: FairDoc) -> list[LinkEntry]:
    """The links the action drawn now takes: the pending draw's (``draws.py``),
    or none (no phone took part: a server-only outcome, never a check mark)."""
    p = fair.get("pending")
    if p is None:
        return []
    return [{"seat": e["seat"], "link": e["link"], "anchor": e["anchor"]} for e in p["links"]]


def _record(draw: Draw, v: int) -> None:
    scope, fields = draw.scope, draw.fields
    earlier = [o for o in scope["outcomes"] if o["index"] == draw.index]
    # An index keeps the version its seeds froze at (rng_for keeps its seeds).
    at = next((o["v"] for o in earlier if "v" in o), v)
    if draw.rng is not None:
        if draw.rng.draws:
            keep(scope, draw.rng, fields, at, draw.links)
        return
    if not fields or any(o.get("fixed") and o.get("fields") == plain(fields) for o in earlier):
        return
    seeds = earlier[0]["seeds"] if earlier else len(scope["seeds"])
    # Marked so every checker says so (outcome_fixed): a test gave it, nothing derived it.
    fixed: OutcomeRecord = {"index": draw.index, "seeds": seeds, "draws": [], "fields": plain(fields),
                            "v": at, "fixed": True}
    scope["outcomes"].append(fixed)


def settle(engine: Engine, doc: TableDoc, state: Any, v: int, rng: Rng, *, draw: Draw | None = None,
           forward: bool = True) -> FairLog | None:
    """After a change that moved the game to ``state`` (at version ``v``):
    ``draw``'s outcome kept (its ``fields``: the random fields the action logs),
    the scopes the game needs opened, and on a step forward (not an undo)
    those it is done with revealed, with the choices now public. An undo
    retracts the seals of choices it took back (sent again, they are sealed
    anew under a fresh label). Returns what was revealed, for the
    change's log entry."""
    fair = _fair(doc)
    if fair is None:
        return None
    if draw is not None:
        _record(draw, v)
    out: FairLog = {"scopes": [], "seals": []}
    playing = doc["status"] != "lobby" and state is not None
    if playing:
        for name in engine.fair_scopes(state):
            if name not in fair["closed"]:
                _scope(doc, fair, name, rng)
    if forward and playing:
        for scope in list(fair["scopes"]):
            name = name_of(doc, scope["label"])
            if name == SETUP or engine.fair_done(state, name):
                fair["scopes"].remove(scope)
                fair["closed"].append(name)
                rest = scope["label"].removeprefix(label(doc, ""))
                if rest != name:
                    fair["closed"].append(rest)  # ``name.k`` too: ``_scope`` never opens it again
                if scope["outcomes"]:  # a scope that drew nothing proves nothing
                    scope["revealed"] = True
                    out["scopes"].append(scope)
                    fair["revealed"] += 1
    secrets = engine.fair_secrets(state) if playing else {}
    _seal(doc, fair, secrets, out, forward)
    return out if out["scopes"] or out["seals"] else None


def _seal(doc: TableDoc, fair: FairDoc, secrets: dict[str, tuple[Any, bool]], out: FairLog,
          forward: bool) -> None:
    """Seals each choice locked in secret and reveals those now public. A
    label's hash never changes (a phone holds the server to the hash it saw):
    a seal of a choice taken back is retracted, and the choice made again is
    sealed under a fresh label (``name.k``), the same value or not."""
    live = {name_of(doc, x["label"]): x for x in fair["seals"] if not x.get("retracted")}
    # Taken back (an undo; a phone seal withdrawn by the host's skip): sealed
    # for good, and the choice made again gets a fresh label.
    for name, x in live.items():
        if name not in secrets:
            x["retracted"] = True
    if not forward:
        return
    for name, (value, shown) in secrets.items():
        seal = live.get(name)
        if seal is None and not shown and value is not None:
            # (value None: sealed on its phone; seals.take recorded its hash.)
            fair["seals"].append(_reseal(doc, fair, name, value))
        elif seal is not None and shown:
            if "at_rest" in seal:
                seal["salt"] = atrest.unseal(seal.pop("at_rest"), doc["id"], f"seal/{seal['label']}")["salt"]
            # The game's value now, not the one kept at the seal: a value
            # changed after it was sealed is what the check must catch.
            seal["value"] = plain(value)
            seal["revealed"] = True
            fair["seals"].remove(seal)
            out["seals"].append(seal)
            fair["revealed"] += 1


def _reseal(doc: TableDoc, fair: FairDoc, name: str, value: Any) -> SealRecord:
    """A new seal of ``name``: always under a label never used before (a
    retracted seal is never brought back, so whether the choice made again is
    the same cannot be read from the labels; issue 38)."""
    taken = {x["label"] for x in fair["seals"]}
    k = 1
    while (lab := label(doc, name if k == 1 else f"{name}.{k}")) in taken:
        k += 1
    made = seal_value(lab, value)
    # Nothing sealed sits in the store in clear: salt and value encrypted at
    # rest until the reveal (the hash alone is public).
    made["at_rest"] = atrest.seal({"salt": made["salt"], "value": made["value"]}, doc["id"], f"seal/{lab}")
    made["salt"], made["value"] = None, None
    return made
