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
  rings (chatter: ``pipeline.CHATTER``).
- When the host may step in (issue 37, ``StallRule``): ``skip`` only for a
  seat the game has waited for long enough (the reminder's time, else
  ``TABLEMATE_STALL_AFTER``; sooner when its phone has no live socket), and
  never for a seat choosing again after an undo took its sealed choice back
  (``reopened``); ``phoneless`` for another seat only when its phone has no
  live socket (else the seat's own phone sends it: its consent).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from engines.base import Engine
from server.errors import ServiceError
from server.model import Action, Event, Seat, TableDoc
from server.service import atrest
from server.service.change import Call, Outcome, need_host, seat_step
from server.service.seats import NO_TOKEN, paused, seat_of

#: The least wait a reminder may set for stepping in (s): a host who sets the
#: reminder to a few seconds does not get to skip a seat at once by it.
REMINDER_FLOOR = 30.0


def clock() -> float:
    """The server's clock (epoch seconds): tests move it."""
    return time.time()


@dataclass(frozen=True)
class StallRule:
    """When the host may go on without a seat the game waits for (``skip``):
    once the game has waited ``after`` seconds for it (the reminder's time
    when one is set, never under ``REMINDER_FLOOR``), or ``offline`` seconds
    when its phone has no live socket; a seat without a phone at once (the
    host enters for it anyway); a reopened seat never."""

    after: float = 60.0
    offline: float = 15.0

    def wait(self, doc: TableDoc) -> float:
        reminder = doc.get("reminder", 0)
        return max(float(reminder), min(self.after, REMINDER_FLOOR)) if reminder else self.after

    def step_in(self, doc: TableDoc, online: set[str] | frozenset[str] | None) -> dict[str, float]:
        """Per seat the game waits for, from when (epoch seconds) the host may
        step in; a reopened seat is left out (never, for this choice)."""
        if doc["status"] != "playing":
            return {}
        wait = self.wait(doc)
        reopened = doc.get("reopened", ())
        phones = {s["id"]: s.get("phone") is not False for s in doc["seats"]}
        out: dict[str, float] = {}
        for p, since in doc.get("waits", {}).items():
            if p in reopened:
                continue
            if not phones.get(p, True):
                out[p] = since
            elif online is not None and p not in online:
                out[p] = round(since + min(wait, self.offline), 3)
            else:
                out[p] = round(since + wait, 3)
        return out

    def check_skip(self, doc: TableDoc, seat: str, online: set[str] | frozenset[str] | None) -> None:
        """Refuses ``skip`` of ``seat`` before its time (``not_stalled``) or
        while it chooses again after an undo (``seat_reopened``). A seat the
        game does not wait for is the engine's to refuse (``not_waiting``)."""
        if seat in doc.get("reopened", ()):
            raise reopened_error(doc, seat)
        at = self.step_in(doc, online).get(seat)
        now = clock()
        if at is not None and now < at:
            waited = max(0, int(now - doc.get("waits", {}).get(seat, now)))
            raise ServiceError("conflict", "not_stalled",
                               f"The table has waited for {name_of(doc, seat)} for {waited} s only: the host may go "
                               f"on without them in {math.ceil(at - now)} s (every phone's clock shows the wait).")


def name_of(doc: TableDoc, seat: str) -> str:
    return next((s["name"] for s in doc["seats"] if s["id"] == seat), seat)


def reopened_error(doc: TableDoc, seat: str) -> ServiceError:
    return ServiceError("conflict", "seat_reopened",
                        f"The host's undo took {name_of(doc, seat)}'s sealed choice back: they choose again on "
                        "their own phone, and nobody else makes that choice for them.")


def check_phoneless(doc: TableDoc, me: str, target: str, online: set[str] | frozenset[str] | None) -> None:
    """Refuses the host taking ``target`` off a phone that is live
    (``phone_live``: its own phone sends ``phoneless`` itself, its consent)
    or that chooses again after an undo (``seat_reopened``)."""
    if target in doc.get("reopened", ()):
        raise reopened_error(doc, target)
    check_not_live(doc, me, target, online)


def check_not_live(doc: TableDoc, me: str, target: str, online: set[str] | frozenset[str] | None) -> None:
    """Refuses moving ``target``'s seat off a phone that is live, but by that
    phone itself (``phone_live``): taking it off (``phoneless``) or handing it
    to another phone (a rejoin code, and its redeeming). A seat off its phone
    already (on paper, its phone paused) is no live phone's."""
    if seat_of(doc, target).get("phone") is False:
        return
    if target != me and online is not None and target in online:
        raise ServiceError("conflict", "phone_live",
                           f"{name_of(doc, target)}'s phone is connected: only that phone can take its seat off "
                           "it (\"play without my phone\"), or wait until it is gone.")


def host_step(doc: TableDoc, me: str, v: int, action: Action, events: list[Event], proxy_for: str | None) -> None:
    """Records in ``doc`` the step ``me`` took at version ``v`` for another
    seat, if it did (a skip, a seat taken off or handed back its phone, an
    undo that reopened a seat's choice, a move entered with ``as``): every
    phone announces it with that version's snapshot, not only the history."""
    atype = action["type"]
    seat: str | None = None
    if proxy_for is not None:
        seat, atype = proxy_for, "as"
    elif atype == "skip":
        seat = action.get("seat")
    elif atype in ("phoneless", "phone_back"):
        seat = action.get("player")
    elif atype == "undo":
        seat = next((e["reopened"] for e in events if e.get("reopened")), None)
    if seat is None or seat == me:
        doc.pop("step", None)
        return
    doc["step"] = {"v": v, "type": atype, "seat": seat, "by": me}


def reopens(c: Call, target: int) -> str | None:
    """The seat whose sealed choice (``Engine.sealed_choices``), made on its
    own phone, undoing the game action at version ``target`` takes back (None:
    the host's own, one entered for a seat without a phone, or no such
    choice). That seat chooses again on its phone; the undo is refused
    (``choice_off_phone``) while the seat is off it, since then nobody could."""
    entry = next((e for e in c.log() if e["v"] == target), None)
    if entry is None or entry.get("entered_for") is not None:
        return None
    action = entry["action"]
    fields = c.engine.sealed_choices.get(action["type"], ())
    chooser = entry["by"]
    if chooser is None or chooser == c.me or not any(f in action for f in fields):
        return None
    seat = seat_of(c.doc, chooser)
    if seat.get("phone") is False or seat.get("back") or seat.get("sealed"):
        raise ServiceError("conflict", "choice_off_phone",
                           f"Undo would take back the sealed choice {seat['name']} made on their own phone, "
                           "and only that phone may make it again: hand the seat its phone back first.")
    return chooser


def note_waits(engine: Engine, doc: TableDoc, state: Any) -> None:
    """Records in ``doc`` since when the game waits for each seat it waits for
    in ``state`` (``doc``'s new engine state; None: the change left the game
    as it was). A seat still waited for keeps its time (another phone's entry
    does not restart its wait); a seat newly waited for starts now."""
    if doc["state"] is None or doc["status"] != "playing":
        doc.pop("waits", None)
        doc.pop("reopened", None)
        return
    if state is None:
        return
    old = doc.get("waits", {})
    now = round(clock(), 3)
    doc["waits"] = {p: old.get(p, now) for p in engine.waiting(state)}
    # A reopened seat's choice is made once the game no longer waits for it to
    # make one: it may wait for it again for something else (the opening of a
    # King Up vote sealed again), which the host may step in for as for any.
    reopened = [p for p in doc.get("reopened", ()) if p in doc["waits"]
                and any(a["type"] in engine.sealed_choices for a in engine.legal_actions(state, p))]
    if reopened:
        doc["reopened"] = reopened
    else:
        doc.pop("reopened", None)


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
        now = atrest.load_state(c.engine, doc)
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
