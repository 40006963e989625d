"""The stalled phone (issue 33), the platform's side: whom the game has been
waiting for and since when, the host's reminder, and a seat's way back to
its own phone.

- ``note_waits``: at each commit that changes the game, per seat the engine
  waits for (``Engine.waiting``) the time it began to wait; snapshots carry
  it with the server's clock (``snapshot.py``).
- ``phoneless`` (``platform.py``) keeps the seat's token: its phone is
  *paused*, not shut out (``seats.paused``). ``phone_back`` (host) applies the
  engine's ``set_phone`` (refused as the game's rules say) and wakes that
  token, which the host never held; the phone shows the seat's secrets again
  once its owner confirms there (``resume``). A phone really gone still takes
  the rejoin QR, sealed until its PIN (issue 30).
- ``reminder``: the host's choice of how long a wait is before the late phone
  rings (chatter: ``budget.CHATTER``).
"""

from __future__ import annotations

import time
from typing import Any

from engines.base import Engine
from server.errors import ServiceError
from server.model import Action, Event, Seat, TableDoc
from server.service.change import Call, Outcome, need_host, seat_step
from server.service.seats import NO_TOKEN, paused, seat_of


def note_waits(engine: Engine, doc: TableDoc, state: Any) -> None:
    """Records in ``doc`` since when the game waits for each seat it waits for
    in ``state`` (``doc``'s new engine state; None: the change left the game
    as it was). A seat still waited for keeps its time (another phone's entry
    does not restart its wait); a seat newly waited for starts now."""
    if doc["state"] is None or doc["status"] != "playing":
        doc.pop("waits", None)
        return
    if state is None:
        return
    old = doc.get("waits", {})
    now = round(time.time(), 3)
    doc["waits"] = {p: old.get(p, now) for p in engine.waiting(state)}


def seat_paused(back: bool = False) -> ServiceError:
    """What a paused seat's phone gets for any action (``back``: handed back,
    for anything but ``resume``)."""
    if back:
        return ServiceError("conflict", "seat_paused",
                            'The host handed this seat back to this phone: tap "continue" (resume) first.')
    return ServiceError("conflict", "seat_paused",
                        "The host enters this seat's moves for now; ask the host to hand it back to this phone.")


def check_may_act(seat: Seat, atype: str) -> None:
    """Refuses an action of a paused seat's phone (``seat_paused``): it may do
    nothing until handed back, and then only ``resume``."""
    if paused(seat):
        raise seat_paused()
    if seat.get("back") and atype != "resume":
        raise seat_paused(back=True)


def phone_back(c: Call) -> Outcome:
    """Host only: ``player``'s seat goes back to its phone. Mid-game the
    engine's ``set_phone`` is applied in the same change (logged with it as
    ``action["engine"]``, replayed by undo and results), refused as the game
    says (``paper_until_*``). A paused seat's phone plays again with the token
    it kept, once its owner taps ``resume`` on it; a seat that took a new
    phone by a rejoin code but stayed on paper in the game only leaves paper.
    Undo stops here: what a phone was given back is not taken from it again
    by replaying the game without an earlier action."""
    need_host(c.host, "hand a seat its phone back")
    doc = c.doc
    target: str = c.payload["player"]
    seat = seat_of(doc, target)
    off = seat.get("phone") is False
    if off and seat["th"] == NO_TOKEN:
        raise ServiceError("conflict", "no_phone_to_return",
                           f"{seat['name']} has no phone at this table to hand back: give the seat one "
                           "with its rejoin QR.")
    action: Action = {"type": "phone_back", "player": target}
    events: list[Event] = [{"type": "phone_back", "player": target}]
    state: Any = None
    if doc["status"] == "playing":
        now = c.engine.load(doc["state"])
        if target in c.engine.paper_seats(now):
            back: Action = {"type": "set_phone", "seat": target, "player": c.me, "host": True}
            state = seat_step(c, now, back, action, events)
            doc["undoable"] = []
    if not off and state is None:
        raise ServiceError("conflict", "has_phone", f"{seat['name']} already plays on their own phone.")
    # A rejoin code shown for the seat meanwhile dies: its phone is back.
    seat.pop("claim", None)
    if off:
        del seat["phone"]
        # A sealed seat's PIN is its owner's confirmation; otherwise the owner
        # taps "continue" on the phone before its secrets show again.
        if not seat.get("sealed"):
            seat["back"] = True
    return Outcome(doc, action, events, state=state)


def resume_seat(c: Call) -> Outcome:
    """The seat's own phone, handed back by the host, confirms its owner holds
    it: its view and its moves are its own again."""
    seat = seat_of(c.doc, c.me)
    if not seat.get("back"):
        raise ServiceError("conflict", "not_handed_back", "This phone has nothing to confirm: it is not paused.")
    del seat["back"]
    return Outcome(c.doc, {"type": "resume"}, [{"type": "resumed", "player": c.me}])


def set_reminder(c: Call) -> Outcome:
    """Host only: after how many seconds of waiting for a seat its phone rings
    and every phone shows the wait (0: never, the default)."""
    need_host(c.host, "set the reminder")
    seconds: int = c.payload["seconds"]
    if seconds:
        c.doc["reminder"] = seconds
    else:
        c.doc.pop("reminder", None)
    return Outcome(c.doc, {"type": "reminder", "seconds": seconds}, [{"type": "reminder_set", "seconds": seconds}])
