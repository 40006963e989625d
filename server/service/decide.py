"""One action's decision, with no I/O: ``decide(tx, call, ctx) -> Commit``.

Given the table's document as read (``Tx``: the document, the request
records known, the log when an undo asks for it), the action as checked
(``ActionCall``) and what the process knows besides (``Context``: its
randomness, when the host may step in, whose phone is live, the engine
state it holds of a version), it gives the new document, its log entry, the
request records to write and the action's answer: a ``store.Commit``. The
service's write loop (``write.py``) reads, runs this, commits and retries;
tests call it on a dict (``tests/server/service/test_decide.py``).

Hook points: a platform action is its ``Call`` to a ``platform_actions.HANDLERS``
entry, a game action ``change.game_outcome``; what every change that
moved the game settles (``fairness.settle``) and records (``note_waits``,
``host_step``) follows in ``record_outcome``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from engines.base import Engine, Rng
from server.errors import ServiceError
from server.model import (
    Action,
    ActionResult,
    Event,
    Kind,
    LogEntry,
    PinHash,
    RequestRecord,
    TableDoc,
)
from server.service import draws, evening, fairness, fairview
from server.service.change import Call, Handler, Outcome, game_outcome, may_proxy, sealed_seat
from server.service.hostship import after as hostship_after
from server.service.hostship import guard as hostship_guard
from server.service.hostship import holds
from server.service.seats import authenticate
from server.service.stall import StallRule, check_may_act, host_step, note_waits
from server.store import Commit, Tx
from server.store.links import Announce


def log_entry(v: int, by: str | None, rnd: int, kind: Kind, action: Action,
              events: list[Event]) -> LogEntry:
    return {"v": v, "by": by, "round": rnd, "kind": kind, "action": action, "events": events,
            "at": round(time.time(), 3)}


def logged(out: Outcome, by: str) -> LogEntry:
    """Raises the version of ``out.doc`` by one and returns the entry that logs it."""
    out.doc["version"] += 1
    return log_entry(out.doc["version"], by, out.doc["round"], out.kind, out.action, out.events)


@dataclass(frozen=True)
class ActionCall:
    """An action as checked before the engine runs (``Pipeline.action_call``)."""

    engine: Engine
    atype: str
    action: dict[str, Any]
    handler: Handler | None  # a table change (server/service/platform_actions.HANDLERS); None: a game action
    proxy_for: str | None
    #: ``pin``/``unlock``: the PIN stretched off the event loop (``seats.pin_hash``).
    pin: PinHash | None = None


@dataclass(frozen=True)
class Context:
    """What a decision knows besides the document and the action."""

    token: str | None
    request_id: str
    #: The version the phone acted on, when it said (``stale_version`` otherwise).
    expected: int | None
    rng: Rng
    stall: StallRule
    #: Whose phone is live, read before the change for the actions that ask (``STEP_IN``).
    online: frozenset[str] | None
    #: The engine state this process holds of a version of the table, if any
    #: (``store.States``): spares decoding the document's state.
    state_at: Callable[[int], Any] = lambda _v: None
    #: Whose phone is live now (a draw's contributors, ``draws.py``), read only
    #: when an action draws.
    present: Callable[[], Collection[str]] = lambda: ()
    #: Seconds a pending draw waits for the phones' links (``Limits.draw_wait``).
    draw_wait: float = 3.0


def decide(tx: Tx, call: ActionCall, ctx: Context) -> Commit[ActionResult]:
    """The commit ``call`` makes on ``tx.doc``; raises ``ServiceError`` to refuse.
    A retry of an applied request is answered from its record (nothing to write)."""
    atype = call.atype
    seat = authenticate(tx.doc, ctx.token, seated=True)
    if seat.get("sealed") and atype != "unlock":
        raise sealed_seat()
    cached: RequestRecord | None = tx.cached_result(ctx.request_id)
    if cached is not None:
        if cached["by"] != seat["id"]:
            raise ServiceError("conflict", "request_id_reused", "This request_id belongs to another seat.")
        if cached.get("undone"):
            raise ServiceError("conflict", "request_undone",
                               "That action was undone; send it again as a new action if you still mean it.")
        # Before the paused check: the retry of a `phoneless` whose answer was lost
        # finds its own seat paused by it, and must get that first answer.
        return Commit(None, result=cached["result"])
    check_may_act(seat, atype)
    if ctx.expected is not None and ctx.expected != tx.doc["version"]:
        raise ServiceError("conflict", "stale_version",
                           f"The table is at version {tx.doc['version']}, not {ctx.expected}; refresh and retry.")
    doc = tx.copy()
    me = seat["id"]
    out, carried = _outcome(tx, doc, me, call, ctx)
    if draws.is_pending_action(out.action):
        return announced(out, me, tx.doc["version"], ctx)
    commit = record_outcome(tx, out, me, call, ctx, carried)
    if call.handler is not None and atype in draws.DURING:
        # Passes a draw that waits (draws.DURING): the store lets it through
        # once it copied that draw into its document (Pipeline.update).
        commit.links = PASS
    return commit


#: ``Commit.links`` of a change that may pass a pending draw (``Pipeline.update`` fills in the draw).
PASS = ("p", 0, 0)


def announced(out: Outcome, me: str, base: int, ctx: Context) -> Commit[ActionResult]:
    """A draw held (``draws.announce``): no version, no log line, no
    document; the store keeps it in the links key, checks the table is still
    at ``base`` and no draw waits, records the request (its answer: the
    version as it stays, and ``draw_pending``) and sends the draw frame."""
    p = draws.pending(out.doc)
    assert p is not None
    result: ActionResult = {"version": base, "events": out.events}
    commit: Commit[ActionResult] = Commit(None, request=(ctx.request_id, {"by": me, "result": result, "v": base}),
                                          result=result)
    commit.announce = Announce(p["draw"], dict(p), fairview.pending_view(p))
    return commit


def _outcome(tx: Tx, doc: TableDoc, me: str, call: ActionCall, ctx: Context) -> tuple[Outcome, Any]:
    """The platform handler's or the engine's outcome, and the state carried
    over from the version before when a table change left the game as it was."""
    engine, atype, action, proxy_for = call.engine, call.atype, call.action, call.proxy_for
    host = holds(doc, me)
    fresh: Callable[[], TableDoc] = tx.copy
    if draws.pending(doc) is not None:
        # A draw waits only if the links key says so (linking.py); a document
        # carries one only as a change that passed it copied it. One the key
        # does not name (from a build that kept it in the document; a key lost
        # on its own) refused every action for good: so the key is read here,
        # in this case only, and this change's document is made without it.
        fields = tx.links()
        draws.overlay(doc, fields)

        def fresh() -> TableDoc:
            return draws.overlay(tx.copy(), fields)
    if call.handler is not None:
        game = doc["state"]
        hostship_guard(doc, me, atype, action)
        draws.refuse_during(doc, atype)
        c = Call(engine, doc, me, host, action, ctx.rng, tx.log, call.pin, ctx.online)
        # A start that draws waits for the phones' links too (draws.py).
        out = (draws.announce_start(c, call.handler, ctx.request_id, ctx.present, ctx.draw_wait)
               if atype == "start" else None) or call.handler(c)
        hostship_after(out.doc, atype)
        evening.note(out.doc, atype, me)
        if out.state is None and game is not None and out.doc["state"] is game:
            # The game as it was (a seed, a rename): the state this process
            # holds for the version before is the new version's too, so the
            # fan-out and the next action need not decode it (after every
            # leg's seeds, the first roll did).
            return out, ctx.state_at(doc["version"])
        return out, None
    # The state this process committed at this version, if it did.
    state = ctx.state_at(doc["version"])
    if proxy_for is not None:
        may_proxy(doc, me, proxy_for)
    elif atype == "skip" and host:
        ctx.stall.check_skip(doc, action["seat"], ctx.online)
    # Authorized and applied as the seat without a phone, never as the host.
    actor, as_host = (proxy_for, False) if proxy_for is not None else (me, host)
    # A draw the phones take part in waits for their links (draws.py).
    draws.refuse_while_pending(doc)
    held = draws.announce(engine, doc, actor, as_host, atype, action, ctx.rng, state, ctx.request_id,
                          ctx.present, ctx.draw_wait, me, fresh)
    return held or game_outcome(engine, doc, actor, as_host, atype, action, ctx.rng, state), None


def record_outcome(tx: Tx, out: Outcome, me: str, call: ActionCall, ctx: Context,
            carried: Any) -> Commit[ActionResult]:
    """The outcome settled (fair dice, waits, the host's step, undo's marks) and logged."""
    engine, proxy_for = call.engine, call.proxy_for
    revealed = None
    if out.state is not None:
        # The game moved: its outcome kept, scopes opened and revealed, choices sealed.
        revealed = fairness.settle(engine, out.doc, out.state, out.doc["version"] + 1, ctx.rng,
                                   draw=out.draw, forward=call.atype != "undo")
    note_waits(engine, out.doc, out.state)
    entry = logged(out, out.by or me)
    if revealed is not None:
        entry["fair"] = revealed
    v = out.doc["version"]
    proxy = proxy_for or out.entered_for  # a pending draw's, made by another phone's link
    if proxy is not None:
        entry["entered_for"] = proxy
    host_step(out.doc, out.by or me, v, out.action, out.events, proxy)
    if out.kind == "game":
        entry["rid"] = out.rid or ctx.request_id
    if engine.seals(out.events):
        # A reveal: nothing before it (this action included) can be undone,
        # even when a table change made it (a seat going phoneless can
        # start Count Up's count).
        out.doc["undoable"] = []
        out.doc["sealed_at"] = v
    elif out.kind == "game":
        out.doc["undoable"].append(v)
    result: ActionResult = {"version": v, "events": out.events}
    record: RequestRecord = {"by": me, "result": result, "v": v}
    retired: list[tuple[str, RequestRecord]] = []
    for rid in out.undone_requests:
        rec: RequestRecord | None = tx.cached_result(rid)
        if rec is not None:
            retired.append((rid, {**rec, "undone": True}))
    return Commit(out.doc, entry, (ctx.request_id, record), result=result, more_requests=retired,
                  state=out.state if out.state is not None else carried)
