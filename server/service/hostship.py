"""Who holds host powers, and the host whose phone dies (issue 41).

The host is ``doc["host"]``. When the host's seat has had no live phone for
a while (presence, never a phone's claim: the hub times it, ``live/hub.py``,
and this module reads the presence again in the store before it writes), the
powers pass to a *stand-in*, ``doc["stand_in"]``: the next seat after the host,
in seat order, with a live phone. Every phone sees it (the snapshot's
``host`` is the stand-in, ``host_away`` the host; a line in the history), and
the host takes the powers back when its seat has a live phone again. The
stand-in does what the host does, except hand the powers on for good, remove
the host or take the host's seat off its phone: the seat stays the host's.

The host's seat itself comes back without the host: the stand-in shows a
rejoin code for it (``/rejoin``), and that claim is sealed wherever the game
is (the lobby too), so only the seat's PIN opens it: whoever scans the code is
not the host until then.
"""

from __future__ import annotations

from typing import Any

from server.errors import ServiceError
from server.model import Action, Event, Seat, TableDoc
from server.service.seats import hidden

#: Seconds the host's seat has no live phone before its powers pass on (the
#: config's ``HOST_AWAY``, ``TABLEMATE_HOST_AWAY``): long enough for a phone
#: locked in a pocket or a page reload, short enough that a game night does
#: not wait on a dead battery.
HOST_AWAY = 60.0


def holds(doc: TableDoc, player: str | None) -> bool:
    """Whether ``player`` holds host powers now: the host, or its stand-in.

    >>> doc = {"host": "p1", "stand_in": "p2"}
    >>> holds(doc, "p1"), holds(doc, "p2"), holds(doc, "p3"), holds(doc, None)
    (True, True, False, False)
    """
    return player is not None and (player == doc["host"] or player == doc.get("stand_in"))


def acting(doc: TableDoc) -> str:
    """The seat every phone shows as the host: the stand-in while there is one."""
    return doc.get("stand_in") or doc["host"]


def live(seat: Seat, online: set[str] | frozenset[str]) -> bool:
    """Whether ``seat`` has a phone that could use host powers now: connected,
    on its phone, neither sealed nor paused."""
    return seat["id"] in online and seat.get("phone") is not False and not hidden(seat)


def successor(doc: TableDoc, online: set[str] | frozenset[str], skip: str) -> str | None:
    """The first seat after the host, in seat order, with a live phone (not ``skip``)."""
    seats = doc["seats"]
    at = next((i for i, s in enumerate(seats) if s["id"] == doc["host"]), 0)
    for s in seats[at + 1:] + seats[:at + 1]:
        if s["id"] not in (skip, doc["host"]) and live(s, online):
            return s["id"]
    return None


def change(doc: TableDoc, online: set[str] | frozenset[str], holder_away: bool) -> tuple[Action, list[Event], str] | None:
    """What presence makes of host powers, applied to ``doc``: the logged
    action, its events and the seat it is logged as by; None when nothing
    changes. ``online``: the seats with a live socket, as the store says now;
    ``holder_away``: the server has seen the holder (stand-in, else host)
    without a live phone for ``HOST_AWAY`` s."""
    host = doc["host"]
    seat = {s["id"]: s for s in doc["seats"]}
    stand_in = doc.get("stand_in")
    if stand_in is not None and (host not in seat or live(seat[host], online)):
        del doc["stand_in"]
        drop_claim(doc)
        return {"type": "host_back", "player": host}, [{"type": "host_back", "player": host}], host
    holder = stand_in or host
    if not holder_away or (holder in seat and live(seat[holder], online)):
        return None
    nxt = successor(doc, online, holder)
    if nxt is None or nxt == stand_in:
        return None
    doc["stand_in"] = nxt
    event: Event = {"type": "stand_in", "player": nxt, "host": host}
    return {"type": "stand_in", "player": nxt, "host": host}, [event], nxt


def drop_claim(doc: TableDoc) -> None:
    """The host is back: a rejoin code another seat made for the host's seat
    dies (redeemed now it would shut out the host's own phone)."""
    for s in doc["seats"]:
        if s["id"] == doc["host"] and s.get("claim", {}).get("by", doc["host"]) != doc["host"]:
            del s["claim"]


def guard(doc: TableDoc, me: str, atype: str, payload: dict[str, Any]) -> None:
    """Refuses what a stand-in may not do to the seat it stands in for; the
    host's own changes pass (``after`` follows them up)."""
    if me == doc["host"] or me != doc.get("stand_in"):
        return
    target = payload.get("player")
    if atype == "host":
        raise ServiceError("forbidden", "stand_in_limit",
                           "You hold host powers only until the host is back: the host hands them on for good.")
    if atype in ("remove", "phoneless") and target == doc["host"]:
        raise ServiceError("forbidden", "stand_in_limit",
                           "The host's seat stays the host's: bring it back with a rejoin code instead.")
    if atype == "phoneless" and target == me:
        raise ServiceError("conflict", "host_needs_phone",
                           "You hold host powers now: keep your phone until the host is back.")


def after(doc: TableDoc, atype: str) -> None:
    """The host handed its powers on for good: no stand-in is left over."""
    if atype == "host":
        doc.pop("stand_in", None)


def seal_claim(doc: TableDoc, seat: Seat, issuer: str | None) -> bool:
    """Whether a claim of ``seat`` must be sealed though the table is in its
    lobby (or over): the host's seat, by a code the host did not make, opens
    only with the seat's PIN, or a stand-in could make itself the host."""
    return seat["id"] == doc["host"] and issuer is not None and issuer != doc["host"]
