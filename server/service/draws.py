"""Draws nobody can foresee or grind: the phones' hash chains and the
two-phase draw (docs/fairness.md, "Chains and pending draws").

- ``anchor {"anchor", "length"}``: a phone's chain for this table
  (``tablemate_verify.chain``); it counts for draws announced after it.
- ``announce`` (the pipeline's hook for a game action): an action that draws
  afresh, at a table where a seat with a chain has a live phone, is checked
  (by the engine's own refusal, not applied: ``change.fresh_draw``) and then held as the table's *pending draw*, kept in
  the links key, not the document (``decide.announced``, ``links.ANNOUNCE``:
  no version); its scope is open (its commitment public) before any link;
  the phones are told whom the table waits for (the ``draw`` frame, the
  snapshot's ``fair.pending``: ``overlay``).
  ``announce_start`` does the same for a start that draws (the setup scope).
- ``link {"draw", "link"}``: a contributor's next link, strictly the next of
  its chain (checked by ``links.LINK``), kept beside the document, not in it
  (``linking.py``: no version, no snapshot). The last one makes the draw
  (``make``): the action applied, its outcome derived from the scope's secret
  and the links (``tablemate-outcome/2``).
- ``draw_now {"draw"}``: any seated phone, once ``Limits.draw_wait`` has
  passed since the announce, makes the draw without the links still missing
  (``check_draw_now``).

While a draw is pending every other game action, and every table change but
those in ``DURING`` (and every join), is refused (409 ``draw_pending``, by the
commit script itself: a decision made before the announce cannot slip in):
nothing can change the game or the seats the pending action was checked
against, so the draw made later is the one announced.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable, Collection
from typing import Any

from engines.base import Engine, Rng
from server.errors import ServiceError
from server.fairdoc import FairDoc, PendingDraw, SeatChain
from server.model import Action, TableDoc
from server.service.change import UNKNOWN, Call, Handler, Outcome, fresh_draw, game_outcome
from server.service.fairness import SETUP, new_scope, scope_of
from tablemate_verify.chain import MAX_LENGTH, ChainEntry
from tablemate_verify.derive import check_hex32
from tablemate_verify.record import ScopeRecord

#: The platform actions of this module: never charged to a seat's budget
#: (a seat must never be kept from taking part in a draw), never in the history.
ACTIONS = frozenset({"anchor", "link", "draw_now"})
#: The announce's event type (nothing is logged: the action is, when it is drawn).
PENDING = "draw_pending"
#: The table changes taken while a draw is pending: none moves the game or the
#: seats the pending action was checked against.
DURING = ACTIONS | {"rename", "pin", "unlock", "reminder", "proxies", "resume"}


def _fair(doc: TableDoc) -> FairDoc | None:
    return doc.get("fair")


def pending(doc: TableDoc) -> PendingDraw | None:
    fair = _fair(doc)
    return fair.get("pending") if fair is not None else None


def refuse_while_pending(doc: TableDoc) -> None:
    """409 ``draw_pending`` for a game action while a draw waits for links."""
    p = pending(doc)
    if p is not None:
        raise ServiceError("conflict", "draw_pending",
                           f"A {p['action']['type']} is being drawn (waiting for the phones' links); "
                           "try again in a moment.")


def refuse_during(doc: TableDoc, atype: str) -> None:
    """A table change (or a join) while a draw is pending, but those in
    ``DURING``: the pending action was checked against the game and the
    seats as they are, and must be drawn in them (an undo, a seat going onto
    paper, a new seat before a pending start would change what it draws)."""
    if pending(doc) is not None and atype not in DURING:
        raise ServiceError("conflict", "draw_pending",
                           "A draw is waiting for the phones' links; this change waits until it is made.")


def contributors(doc: TableDoc, online: Collection[str]) -> list[str]:
    """The seats whose phone takes part in a draw announced now: those with a
    chain that has a link left and a live socket, in seat order."""
    fair = _fair(doc)
    chains = fair.get("chains", {}) if fair is not None else {}
    return [s["id"] for s in doc["seats"]
            if s["id"] in chains and s["id"] in online and s.get("phone") is not False
            and not s.get("sealed") and chains[s["id"]]["k"] < chains[s["id"]]["length"]]


def announce(engine: Engine, doc: TableDoc, me: str, host: bool, atype: str, payload: dict[str, Any],
             rng: Rng, state: Any, rid: str, online: Callable[[], Collection[str]], wait: float,
             sender: str | None = None, fresh: Callable[[], TableDoc] | None = None,
             trial: bool = False) -> Outcome | None:
    """The pipeline's hook for a game action. None: no phone takes part (no
    chain at this table, or none live), or the action draws nothing afresh
    (no checkable draw; an index drawn before: its links again), so it is
    applied at once as before. Else the draw held as pending. The action is
    checked without applying it (``change.fresh_draw``: the engine's own
    refusal, the scope and index its rules name); where only applying it can
    tell (undo keeps an outcome), and with ``trial`` (the equivalence test,
    ``bench/announce.py``), it is applied to a copy of ``doc``."""
    fair = _fair(doc)
    if fair is None or not fair.get("chains") or not engine.random_action_fields.get(atype):
        return None
    who = contributors(doc, online())
    if not who:
        return None
    where = UNKNOWN if trial else fresh_draw(engine, doc, me, host, atype, payload, state)
    if isinstance(where, str):  # UNKNOWN
        return _by_trial(engine, doc, me, host, atype, payload, rng, state, rid, who, wait, sender, fresh)
    if where is None:
        return None
    name, index = where
    label, scope = scope_of(doc, fair, name)
    if scope is not None and any(o["index"] == index for o in scope["outcomes"]):
        return None
    # A scope no table opens any more at the draw (a table from before scopes
    # opened ahead, an undone outcome drawn anew) is opened with the pending
    # draw, its commitment in the draw frame, before any link: the draw's
    # commit draws from it, never from a secret made after the links were seen.
    opened = [new_scope(label, rng)] if scope is None else []
    return _hold(doc, fair, label, index, {"type": atype, **payload}, me, host, rid, who, wait, sender, opened)


def _by_trial(engine: Engine, doc: TableDoc, me: str, host: bool, atype: str, payload: dict[str, Any],
              rng: Rng, state: Any, rid: str, who: list[str], wait: float, sender: str | None,
              fresh: Callable[[], TableDoc] | None) -> Outcome | None:
    """``announce`` by applying the action to a copy of ``doc`` (engines are
    pure): a refusal is the action's own; that copy's outcome when it draws
    nothing afresh (an undone outcome coming back, an index drawn before),
    else the draw held, with any scope the copy opened."""
    # ``fresh``: a copy parsed from the stored JSON, several times cheaper than deepcopy.
    copied: TableDoc = fresh() if fresh is not None else copy.deepcopy(doc)
    out = game_outcome(engine, copied, me, host, atype, payload, rng, state)
    d = out.draw
    if d is None or d.rng is None or any(o["index"] == d.index for o in d.scope["outcomes"]):
        return out
    fair = _fair(doc)
    assert fair is not None
    known = {x["label"] for x in fair["scopes"]}
    opened = [x for x in (_fair(copied) or fair)["scopes"] if x["label"] not in known]
    return _hold(doc, fair, d.scope["label"], d.index, {"type": atype, **payload}, me, host, rid, who, wait,
                 sender, opened)


def announce_start(c: Call, start: Handler, rid: str, online: Callable[[], Collection[str]],
                   wait: float) -> Outcome | None:
    """The pipeline's hook for ``start``: a game whose start draws (the Camel
    Up board, Count Up's first cards) from the setup scope the lobby opened
    waits for the phones' links as a game action does. None: it starts at
    once (no phone takes part, no setup draw, or a test's fixed options)."""
    fair = _fair(c.doc)
    fields = c.engine.random_option_fields
    if (fair is None or not fair.get("chains") or not fields
            or any(c.doc["options"].get(k) is not None for k in fields)):
        return None
    scope = next((s for s in fair["scopes"] if s["label"].endswith(f"/{SETUP}")), None)
    who = contributors(c.doc, online()) if scope is not None and not scope["outcomes"] else []
    if scope is None or not who:
        return None
    start(dataclasses.replace(c, doc=copy.deepcopy(c.doc)))  # checked: a refusal is the start's own
    return _hold(c.doc, fair, scope["label"], 0, {"type": "start"}, c.me, c.host, rid, who, wait)


def _hold(doc: TableDoc, fair: FairDoc, scope: str, index: int, action: dict[str, Any], me: str, host: bool,
          rid: str, who: list[str], wait: float, sender: str | None = None,
          opened: list[ScopeRecord] | None = None) -> Outcome:
    """The draw to hold as the table's pending one, in ``doc``'s
    ``fair.pending`` (a copy: the store keeps it in the links key, never in
    the document: ``decide.announced``). Its id is the version the table
    will have next (``draw_id``). ``sender``: the phone that entered it for
    ``me`` with ``as``, if another; ``opened``: a scope this draw opened."""
    chains = fair["chains"]
    p: PendingDraw = {
        "draw": doc["version"] + 1, "scope": scope, "index": index, "action": action,
        "player": me, "by": sender or me, "proxy": me if sender not in (None, me) else None,
        "host": host, "rid": rid, "contributors": who,
        "expect": {s: copy.copy(chains[s]) for s in who},
        "links": [], "at": round(time.time(), 3), "wait": wait,
    }
    if opened:
        p["opened"] = opened
    fair["pending"] = p
    return Outcome(doc, {"type": PENDING, "draw": p["draw"], "for": action["type"]},
                   [{"type": PENDING, "draw": p["draw"], "player": me, "action": action["type"], "waiting": who}])


def give_anchor(c: Call) -> Outcome:
    """``anchor {"anchor", "length"}``: the caller's chain for this table,
    replacing any before (used up, or a phone that lost its storage). A draw
    already announced still expects the old chain's next link."""
    fair = _fair(c.doc)
    if fair is None:
        raise ServiceError("conflict", "no_fair_dice", "This table has no checkable dice.")
    try:
        anchor = check_hex32(c.payload["anchor"], "anchor")
    except ValueError as exc:
        raise ServiceError("invalid", "bad_anchor", str(exc)) from exc
    length = c.payload["length"]
    if not isinstance(length, int) or isinstance(length, bool) or not 1 <= length <= MAX_LENGTH:
        raise ServiceError("invalid", "bad_anchor", f"A chain has 1-{MAX_LENGTH} links.")
    chains = fair.setdefault("chains", {})
    old = chains.get(c.me)
    if old is not None and old["anchor"] == anchor:
        raise ServiceError("conflict", "anchor_known", "This chain is this seat's already; send its next link.")
    chain: SeatChain = {"anchor": anchor, "length": length, "v": c.doc["version"] + 1, "k": 0, "last": anchor}
    chains[c.me] = chain
    return Outcome(c.doc, {"type": "anchor", "anchor": anchor, "length": length},
                   [{"type": "anchored", "player": c.me}])


def check_draw_now(fields: dict[str, Any], draw: int) -> PendingDraw:
    """``draw_now {"draw"}``: any seated phone, once the wait is over, makes
    the pending draw with the links that came (``fields``: the links key's);
    the proof lists who took part."""
    p = held(fields, draw)
    left = p["at"] + p["wait"] - time.time()
    if left > 0:
        raise ServiceError("conflict", "draw_wait",
                           f"The table waits {p['wait']:g} s for every phone's link; {left:.1f} s left.",
                           retry_after=max(1, round(left)))
    return p


def fast_only(c: Call) -> Outcome:
    """``link`` and ``draw_now`` never reach a handler: the pipeline takes them
    beside the document (``linking.py``), so a link changes no version."""
    raise ServiceError("invalid", "unknown_action", "link and draw_now are taken by the pipeline itself.")


def with_links(p: PendingDraw, fields: dict[str, Any]) -> None:
    """The links kept beside the document (``Store.links``) into the pending
    draw, in contributor order (the derivation sorts them anyway)."""
    p["links"] = [{"seat": s, "link": fields[s]["link"], "anchor": fields[s]["anchor"]}
                  for s in p["contributors"] if isinstance(fields.get(s), dict)]


def held(fields: dict[str, Any], draw: int) -> PendingDraw:
    """The pending draw ``draw`` as the links key holds it (``fields``), its
    links in; 409 ``draw_over`` when the key names no draw or another."""
    p: PendingDraw | None = fields.get("_pending") if fields.get("_draw") == draw else None
    if p is None:
        raise ServiceError("conflict", "draw_over",
                           "That draw was made already (or never announced); this link was not counted.")
    with_links(p, fields)
    return p


def overlay(doc: TableDoc, fields: dict[str, Any]) -> TableDoc:
    """``doc`` with the draw that waits (the links key's ``fields``) as its
    ``fair.pending``, or none: what a reader (a snapshot) and a change that
    passes a pending draw show. The links key is the truth; a document
    carries a pending draw only as a change that passed it copied it."""
    fair = _fair(doc)
    if fair is None:
        return doc
    p = fields.get("_pending") if fields.get("_draw") is not None else None
    if p is None:
        fair.pop("pending", None)
    else:
        with_links(p, fields)
        fair["pending"] = p
    return doc


def draw_id(fields: dict[str, Any]) -> int:
    """The id of the draw the links key names, 0 for none."""
    d = fields.get("_draw")
    return int(d) if d is not None else 0


def make(c: Call, p: PendingDraw, state: Any = None) -> Outcome:
    """The pending action applied, drawn with the links in (``with_links``;
    ``fairness.draw_rng`` reads them from the pending draw), each
    contributor's chain a step on, and logged as the seat that sent it.
    ``state``: the document's engine state, when this process holds it."""
    action = dict(p["action"])
    atype = action.pop("type")
    fair = _fair(c.doc)
    assert fair is not None
    known = {x["label"] for x in fair["scopes"]}
    fair["scopes"] += [x for x in p.get("opened", []) if x["label"] not in known]
    if atype == "start":
        # platform.py registers this module's handlers: imported here, not at the top.
        from server.service.platform import start_game
        out = start_game(dataclasses.replace(c, me=p["player"], host=p["host"], payload={}))
    else:
        out = game_outcome(c.engine, c.doc, p["player"], p["host"], atype, action, c.rng, state)
    fair = _fair(c.doc)
    assert fair is not None
    fair.pop("pending", None)
    chains = fair.get("chains", {})
    for e in p["links"]:
        chain = chains.get(e["seat"])
        if chain is not None and chain["anchor"] == e["anchor"]:
            chain["k"] += 1
            chain["last"] = e["link"]
    if out.draw is not None:
        _note_chains(out.draw.scope, p)
    out.by, out.entered_for = p["by"], p["proxy"]
    out.rid = p["rid"]
    # What the phone that asked gets as its action's answer (the snapshot shows it to that
    # seat only): the sender's, the host's for a paper seat's roll entered with `as` (that
    # seat has no token, and the host's tap waited 30 s for an answer that never came).
    fair["made"] = {"draw": p["draw"], "player": p["by"], "v": c.doc["version"] + 1, "events": out.events}
    return out


def _note_chains(scope: ScopeRecord, p: PendingDraw) -> None:
    """The scope lists each chain its outcomes' links belong to (the proof's
    ``chains``), as it was when the draw was announced (a phone may have
    anchored anew since)."""
    listed = scope.setdefault("chains", [])
    for e in p["links"]:
        if any(x["seat"] == e["seat"] and x["anchor"] == e["anchor"] for x in listed):
            continue
        c = p["expect"][e["seat"]]
        entry: ChainEntry = {"seat": e["seat"], "anchor": c["anchor"], "length": c["length"], "v": c["v"]}
        listed.append(entry)


def is_pending_action(action: Action) -> bool:
    return action.get("type") == PENDING
