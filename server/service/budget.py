"""What one seat may write into a table's log, so no seat can silence the others.

Three budgets, each a seat's own (a shared pool is what two flooding seats
used up for everyone):

- per minute, every action of a seat (``Limits.seat_actions``), counted in
  Redis with the commit (``Pipeline.action_hits``), plus a tighter rate for
  the platform's *chatter* (renames, PINs, seat order, host, proxies, rejoin
  codes, the reminder: ``Limits.chatter_rate``), which no game needs often;
- per game (since its ``start``; the lobby since the table's creation or the
  last ``play_again``), a seat's chatter (``Limits.seat_chatter``) and its
  other changes (``Limits.seat_entries``; the host twice that, for undo and
  the seats it enters for), counted in the seat itself (``Seat.n``/``chat``);
- the table's whole log (``Limits.log_entries``), over every game: past it a
  new game cannot start, but the one being played can always be finished.

Chatter is refused with ``429``/``409 chatter_limit`` long before it could
fill anything, and a seat at its game share gets ``409 seat_log_full`` while
every other seat plays on.
"""

from __future__ import annotations

from server.config import Limits
from server.errors import ServiceError
from server.model import LogEntry, TableDoc
from server.service.hostship import holds
from server.service.platform_actions import budget_types

# Each platform change's budget is its record's (``platform_actions``).
#: Platform changes no game needs often: they never count against a seat's
#: game share, and have their own, smaller, budgets.
CHATTER = budget_types("chatter")
#: Changes that begin a new budget period (their own entry is the first of it).
NEW_PERIOD = budget_types("period")
#: Changes no budget counts: a phone's anchor and links (``draws.py``) and the
#: announce of a draw: a seat must never be kept from taking part in a draw.
FREE = budget_types("free")


def charge(doc: TableDoc, entry: LogEntry, limits: Limits) -> None:
    """Counts ``entry`` against its seat in ``doc`` (the document about to be
    written), or refuses it with the budget it would exceed: nothing is
    written then."""
    atype: str = entry["action"]["type"]
    if atype in NEW_PERIOD:
        if entry["v"] > limits.log_entries:
            raise ServiceError("conflict", "table_log_full",
                           f"This table has logged {limits.log_entries} changes, its limit: finish this "
                           "game here, and open a new table for the next one.")
        for s in doc["seats"]:
            s.pop("n", None)
            s.pop("chat", None)
    seat = next((s for s in doc["seats"] if s["id"] == entry["by"]), None)
    if seat is None or atype in FREE:
        return  # the seat left with this very change
    if atype in CHATTER:
        seat["chat"] = seat.get("chat", 0) + 1
        if seat["chat"] > limits.seat_chatter:
            raise ServiceError("conflict", "chatter_limit",
                           f"A seat may make {limits.seat_chatter} changes like this one (names, PINs, "
                           "seats, rejoin codes) per game; this seat has used them all.")
        return
    seat["n"] = seat.get("n", 0) + 1
    cap = limits.seat_entries * (2 if holds(doc, seat["id"]) else 1)
    if seat["n"] > cap:
        raise ServiceError("conflict", "seat_log_full",
                       f"This seat has made {cap} changes this game, its share of the table's log; "
                       "the other seats play on.")
