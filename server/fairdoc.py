"""The fair dice's and sealed choices' shapes in the table document
(``service/fairness.py``, ``seals.py``, ``draws.py``; docs/fairness.md): the
open scopes and seals, each seat's hash chain, the draw waiting for the phones'
links, what a change revealed, and what a snapshot shows of them. The rest of
the document is ``server/model.py``'s.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from tablemate_verify import ScopeRecord, SealRecord
from tablemate_verify.chain import LinkEntry


class FairDoc(TypedDict):
    """The table's open scopes and unrevealed seals; what is revealed moves to
    the log entry that revealed it (``LogEntry.fair``), so the document that
    every action reads and writes stays small."""

    scopes: list[ScopeRecord]
    seals: list[SealRecord]
    #: This game's revealed scopes, by name ("leg/2"): never opened again.
    closed: list[str]
    #: How many scopes and seals were revealed at this table, ever: a phone
    #: checks the proof again when it grows.
    revealed: int
    #: Each seat's hash chain for this table (``service/draws.py``).
    chains: NotRequired[dict[str, SeatChain]]
    #: The draw waiting for the phones' links, if any.
    pending: NotRequired[PendingDraw]
    #: The last draw made after it waited: for the seat that asked, its events (``draws._make``).
    made: NotRequired[dict[str, Any]]


class SeatChain(TypedDict):
    anchor: str
    length: int
    #: The table version that accepted the anchor.
    v: int
    #: Links revealed so far, and the last one (the anchor before the first).
    k: int
    last: str


class PendingDraw(TypedDict):
    """A game action checked and held until the phones' links are in."""

    #: Its id: the table version that announced it.
    draw: int
    scope: str
    index: int
    action: dict[str, Any]
    #: The seat it is applied as, and the phone that sent it (another when
    #: entered with ``as`` for a seat without a phone: ``proxy``).
    player: str
    by: str
    proxy: str | None
    host: bool
    #: The request_id that sent it: the draw's log entry carries it (undo).
    rid: str
    contributors: list[str]
    #: Per contributor: its chain as it was at the announce (its next link must follow ``last``).
    expect: dict[str, SeatChain]
    links: list[LinkEntry]
    #: When it was announced (epoch s), and how long it waits for links (s).
    at: float
    wait: float
    #: A scope the announce opened (``draws.announce``): the draw's commit keeps it.
    opened: NotRequired[list[ScopeRecord]]


class FairLog(TypedDict):
    """What one change revealed (``LogEntry.fair``): the proof collects them."""

    scopes: list[ScopeRecord]
    seals: list[SealRecord]


class FairView(TypedDict):
    #: ``{"scope": label, "commitment": hex, "seeded": [seat ids]}`` per open scope.
    open: list[dict[str, Any]]
    #: ``{"seal": label, "hash": hex}`` per choice sealed and not yet revealed.
    sealed: list[dict[str, Any]]
    #: ``FairDoc.revealed``: the proof has more to check when it grows.
    revealed: int
    #: Seat → the label its phone seals its choice under now (``seals.to_seal``).
    to_seal: NotRequired[dict[str, str]]
    #: Per seat with a chain: ``{"anchor", "length", "used"}`` (links revealed).
    chains: NotRequired[dict[str, dict[str, Any]]]
    #: The draw waiting for links (``draws.public``): whom it waits for, since when.
    pending: NotRequired[dict[str, Any]]
    #: To the seat that asked for it only: the last draw made after it waited,
    #: ``{"draw", "version", "events"}`` (its action's answer).
    made: NotRequired[dict[str, Any]]
