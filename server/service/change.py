"""One change of a table document as a handler makes it: what it is given
(``Call``: its own copy of the document, who sends it, the payload) and what
it decides (``Outcome``: the new document, the logged action and events),
and the refusals and steps the platform's handlers (``platform.py``) and a
game action (``game_step.py``) share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engines.base import Engine, EngineError, Rng
from server.errors import ErrorKind, ServiceError
from server.model import Action, Event, Kind, LogEntry, PinHash, TableDoc
from server.service import atrest

if TYPE_CHECKING:  # fairness.py builds on this module
    from server.service.fairness import Draw

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
