"""One change of a table document as a handler or the game makes it: what a
handler is given (``Call``: its own copy of the document, who sends it, the
payload) and what it decides (``Outcome``: the new document, the logged action
and events), the refusals and steps the platform's handlers (``platform.py``)
and a game action share, and the game action's own step (``game_outcome``):
who may enter it (``as`` for a seat without a phone), and the engine's draw and
apply, with the random outcomes undo kept (``TableDoc.stash``) coming back
before anything is drawn anew. The decision (``decide.py``) calls it inside the
pipeline's one write.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engines.base import Engine, EngineError, Rng
from server.errors import ErrorKind, ServiceError
from server.model import Action, Event, Kind, LogEntry, PinHash, Stashed, TableDoc
from server.service import atrest, fairness, seals
from server.service.fairness import Draw
from server.service.hostship import holds

log = logging.getLogger(__name__)

# Engine refusals are conflicts with the table's state, except these.
_ENGINE_KINDS: dict[str, ErrorKind] = {"not_host": "forbidden", "bad_action": "invalid", "invalid_payload": "invalid",
                                  "bad_options": "invalid"}


def engine_error(exc: EngineError) -> ServiceError:
    return ServiceError(_ENGINE_KINDS.get(exc.code, "conflict"), exc.code, exc.message)


@dataclass
class Outcome:
    """What a handler decided: the new document, the logged action and events."""

    doc: TableDoc
    action: Action
    events: list[Event]
    kind: Kind = "platform"
    #: request_ids whose changes this commit took back (undo): retries are refused.
    undone_requests: list[str] = field(default_factory=list)
    #: The engine state ``doc`` now holds, as an object, when the handler has it:
    #: this process's fan-out then need not decode it again (``Commit.state``).
    state: Any = None
    #: The outcome this change drew in a scope (``fairness.Draw``), to keep.
    draw: Draw | None = None
    #: A draw made after the phones' links came in (``draws.py``): logged as
    #: the seat that sent the action, under its request_id, not the last linker.
    by: str | None = None
    rid: str | None = None
    #: The seat a pending draw's action was entered for with ``as``.
    entered_for: str | None = None


@dataclass
class Call:
    """One platform action as a handler sees it: ``doc`` is its own copy to change."""

    engine: Engine
    doc: TableDoc
    me: str
    host: bool
    payload: dict[str, Any]
    rng: Rng
    #: The table's action log, read under the same WATCH (only undo needs it).
    log: Callable[[], Iterable[LogEntry]] = field(default=lambda: ())
    #: ``pin``/``unlock``: the PIN already stretched, off the event loop (the pipeline).
    pin: PinHash | None = None
    #: The seats with a live socket, read before the change (``phoneless``); None: unknown.
    online: frozenset[str] | None = None


Handler = Callable[[Call], Outcome]


def need_host(host: bool, what: str) -> None:
    if not host:
        raise ServiceError("forbidden", "not_host", f"Only the host can {what}.")


def sealed_seat() -> ServiceError:
    """What a sealed seat gets for anything but ``unlock``: whoever holds a
    token issued mid-game must not play, rename or re-PIN the seat before its
    owner's PIN proves who holds it."""
    return ServiceError("conflict", "seat_sealed",
                    "This seat is locked until its owner enters the seat's PIN on this phone.")


def need_lobby(doc: TableDoc, what: str) -> None:
    if doc["status"] != "lobby":
        raise ServiceError("conflict", "not_in_lobby", f"You can {what} only before the game starts.")


def set_state(engine: Engine, doc: TableDoc, state: Any, before: Any = None) -> None:
    """Stores ``state`` in ``doc`` with the round and status it implies.
    ``before``: the engine state ``doc`` holds now (its secret fields'
    ciphertexts are kept where their values did not change: ``atrest``)."""
    status = engine.status(state)
    old = doc["state"]
    doc["state"] = engine.dump(state)
    atrest.hide_state(engine, doc, old, None if before is None else (before, state))
    doc["round"] = int(status.get("round", 0))
    doc["status"] = "over" if status.get("over") else "playing"


def seat_step(c: Call, state: Any, step: Action, action: Action, events: list[Event]) -> Any:
    """A platform action's step in the game (a seat onto paper, or back on its
    phone): applies the engine action ``step`` to ``state``, stores the new
    state in ``c.doc``, logs ``step`` as ``action["engine"]`` (a replay
    applies it again) and adds its events. Returns the new state."""
    try:
        new, more = c.engine.apply(state, step)
    except EngineError as exc:
        raise engine_error(exc) from exc
    set_state(c.engine, c.doc, new)
    action["engine"] = step
    events += more
    return new


# -- a game action ---------------------------------------------------------


def may_proxy(doc: TableDoc, me: str, target: str) -> None:
    """Refuses (403 ``not_allowed``) ``me`` acting for ``target`` with ``as``:
    only for a seat without a phone, and only by the host unless the table
    lets every seated phone (``proxies`` "all"). One code for every refusal,
    so a refusal tells nothing about the seats."""
    seat = next((s for s in doc["seats"] if s["id"] == target), None)
    if seat is None or seat.get("phone") is not False:
        raise ServiceError("forbidden", "not_allowed", f"{target} is not a seat without a phone at this table.")
    if not holds(doc, me) and doc.get("proxies") != "all":
        raise ServiceError("forbidden", "not_allowed", "Only the host enters actions for seats without a phone here.")


def game_outcome(engine: Engine, doc: TableDoc, me: str, host: bool,
                 atype: str, payload: dict[str, Any], rng: Rng, state: Any = None) -> Outcome:
    """A game action applied to ``doc`` as ``me``: an outcome undo put back
    comes back first (the same die, the same card), else a fresh draw.
    ``state``: ``doc``'s engine state when the caller has it decoded."""
    _started(doc)
    if state is None:
        state = atrest.load_state(engine, doc)
    action = {"type": atype, **payload, "player": me, "host": host}
    stash = doc.setdefault("stash", [])
    random_fields = engine.random_action_fields.get(atype, ())
    private = atype in engine.private_draws
    mine = [i for i, s in enumerate(stash)
            if s["type"] == atype and (not private or s["player"] == me)]
    sent = any(f in payload for f in random_fields)  # fixed random (tests): as sent
    kept = pending_redraw(engine, doc, state)
    if kept is not None and not sent:
        redraw_first(kept, atype, me, private)
    try:
        if mine and not sent:
            # An undone outcome comes back: the same die, the same card. A
            # returned die is anyone's to roll (Engine.open_redraws).
            back = {"returned": True} if kept is stash[mine[-1]] and atype in engine.open_redraws else {}
            try:
                drawn = engine.draw(state, {**action, **stash[mine[-1]]["fields"], **back}, rng)
                new_state, events = engine.apply(state, drawn)
                del stash[mine[-1]]
                set_state(engine, doc, new_state, state)
                return Outcome(doc, drawn, events, kind="game", state=new_state)
            except EngineError:
                # Refused with the kept outcome: if a fresh draw is refused
                # too, the refusal is about the action (not your turn) and
                # the outcome stays kept; see below for the other case.
                pass
        # A fresh outcome: derived from its scope's secret, the phones' seeds
        # and its index (docs/fairness.md), where the game names a scope.
        draw_with, fair = fairness.draw_rng(engine, doc, state, action, sent, rng)
        drawn = draw_unkept(engine, state, action, stash if private and not sent else [], draw_with)
        new_state, events = engine.apply(state, drawn)
    except EngineError as exc:
        raise engine_error(exc) from exc
    # A seal made on the phone, or its opening: checked and kept (seals.py).
    seals.take(engine, doc, state, drawn)
    if fair is not None:
        fair.fields = {k: drawn[k] for k in random_fields if k in drawn}
    if mine and not sent:
        # Only a kept outcome the rules no longer allow gets here (never by
        # undo alone, which restores the state it was drawn in): dropped.
        log.warning("table %s: a kept %s outcome no longer applies; drawn anew", doc["id"], atype)
        del stash[mine[-1]]
    set_state(engine, doc, new_state, state)
    # Logged with its sealed fields encrypted (a sheet: atrest.py).
    return Outcome(doc, atrest.hide_action(engine, doc, drawn), events, kind="game", state=new_state, draw=fair)


def _started(doc: TableDoc) -> None:
    if doc["status"] == "lobby":
        raise ServiceError("conflict", "not_started", "The game has not started yet.")


#: ``fresh_draw``'s answer where only applying the action can tell.
UNKNOWN = "unknown"


def fresh_draw(engine: Engine, doc: TableDoc, me: str, host: bool, atype: str, payload: dict[str, Any],
               state: Any = None) -> tuple[str, int] | None | str:
    """What ``game_outcome`` would draw for this action, without applying
    it: the scope the game names and the index in it when it draws afresh,
    None when it draws nothing checkable; raises the refusal ``game_outcome``
    would. ``UNKNOWN`` while undo keeps an outcome (``stash``: whether it
    comes back, is refused first or no longer applies, or which card a
    private draw may deal, the rules only tell by applying it) and for an
    outcome a test gives (its fields checked by the apply)."""
    _started(doc)
    if doc.get("stash") or any(f in payload for f in engine.random_action_fields.get(atype, ())):
        return UNKNOWN
    if state is None:
        state = atrest.load_state(engine, doc)
    action = {"type": atype, **payload, "player": me, "host": host}
    where = engine.fair_draw(state, action)
    if where is None:
        return None  # nothing checkable: an apply at once refuses it, if at all
    refused = engine.fair_refusal(state, action)
    if refused is not None:
        raise engine_error(refused)
    return where


def pending_redraw(engine: Engine, doc: TableDoc, state: Any) -> Stashed | None:
    """The outcome the last undo took back, while the action that draws it
    again is legal (for its seat, if private): until it is drawn, nothing else
    is. None when there is none, or when it no longer applies (an undo went
    further back than its draw: it is drawn anew when its time comes)."""
    stash = doc.get("stash") or []
    if not stash or state is None:
        return None
    kept = stash[-1]
    seats = [kept["player"]] if kept["type"] in engine.private_draws else [s["id"] for s in doc["seats"]]
    for seat in seats:
        if any(a.get("type") == kept["type"] for a in engine.legal_actions(state, seat)):
            return kept
    return None


def redraw_first(kept: Stashed, atype: str, me: str, private: bool) -> None:
    """Refuses (409 ``redraw_first``) any game action but the one that draws
    again what the last undo took back: an undone roll stays on top of the
    pyramid, and whoever saw it must not act on it first (take the leg bet on
    the die they know comes next). A private card comes back to its seat only."""
    if kept["type"] == atype and (not private or kept["player"] == me):
        return
    whose = f" by {kept['player']}" if private else ""
    raise ServiceError("conflict", "redraw_first",
                       f"An undo took back a {kept['type']}: it is drawn again{whose} before anything else.")


def draw_unkept(engine: Engine, state: Any, action: Action, stash: list[Stashed], rng: Rng) -> Action:
    """``engine.draw``, never dealing a private outcome kept for another seat."""
    held = [s["fields"] for s in stash if s["type"] == action["type"] and s["player"] != action["player"]]
    for _ in range(200):
        drawn = engine.draw(state, action, rng)
        if not any(all(drawn.get(k) == v for k, v in h.items()) for h in held):
            return drawn
    raise ServiceError("conflict", "nothing_to_draw", "Every card left is kept for a seat that drew it before an undo.")
