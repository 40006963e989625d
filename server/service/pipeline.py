"""The action pipeline: every change to a table, from HTTP or WebSocket alike.

authenticate → validate the payload against its schema → decide (``decide.py``:
a platform handler or the engine, no I/O) → commit with the next version
(``write.py``'s loop over the store's compare-and-set) → the fan-out told.
Every write goes through ``Pipeline.update``, so a missing table is always 404
and a contended one always 503 ``busy``, and every log entry past the seat's
budget is refused there (``charge``).

What one seat may write into a table's log, so no seat can silence the others:
three budgets, each a seat's own (a shared pool is what two flooding seats used
up for everyone):

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

import secrets
from collections.abc import Callable, Sequence
from typing import Any, TypedDict, TypeVar

from engines.base import Engine, Rng
from server.config import Limits
from server.errors import ServiceError, busy, not_found, rate_limited
from server.model import ActionResult, LogEntry, PinHash, Seat, TableDoc
from server.runtime import offload
from server.service import draws, linking, schemas, write
from server.service.decide import ActionCall, Context, decide, log_entry, logged
from server.service.hostship import holds
from server.service.platform_actions import HANDLERS, action_schema, budget_types
from server.service.seats import authenticate, pin_hash, plausible_id
from server.service.stall import StallRule
from server.service.write import Conflict, RateLimited, Wrote
from server.store import Commit, Primed, Store, Tx

# Kept importable from here (joining.py, the service's facade).
__all__ = ["CHATTER", "FREE", "NEW_PERIOD", "Pipeline", "PipelineOptions", "charge", "log_entry", "logged"]

R = TypeVar("R")

#: Engine actions only a platform action may send, and which one.
PLATFORM_ONLY = {"set_paper": "phoneless", "set_phone": "phone_back"}
#: The actions whose acceptance depends on whose phone is live (``stall.py``).
STEP_IN = frozenset({"skip", "phoneless"})
#: The actions that carry a PIN, and how many of each a seat may send per window (s).
PIN_ACTIONS = frozenset({"pin", "unlock"})
PIN_TRIES, PIN_WINDOW = 5, 600

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


class PipelineOptions(TypedDict, total=False):
    """The pipeline's keyword options, as ``Tables`` passes them on."""

    fixed_random: bool
    rng: Rng | None
    limits: Limits | None


class Pipeline:
    def __init__(
        self,
        store: Store,
        engines: Callable[[str], Engine | None],
        *,
        fixed_random: bool = False,
        rng: Rng | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.store = store
        self.engines = engines
        self.fixed_random = fixed_random
        self.rng: Rng = rng or secrets.SystemRandom()
        self.limits = limits or Limits()
        #: Told of every commit of this process (``Tables.fan_out``), if anyone is.
        self.wrote: Wrote | None = None
        #: When the host may step in for a seat the game waits for.
        lim = self.limits
        self.stall = StallRule(lim.stall_after, min(lim.stall_offline, lim.stall_after))

    def engine(self, game: str) -> Engine:
        eng = self.engines(game)
        if eng is None:
            raise ServiceError("invalid", "unknown_game", f"No game called {game!r}.")
        return eng

    def load(self, table_id: str) -> TableDoc:
        """The table as a reader sees it: the document, with the draw that
        waits as its ``fair.pending`` (read with it, one round trip)."""
        doc, fields = self.store.load_with_links(table_id) if plausible_id(table_id) else (None, {})
        if doc is None:
            raise not_found()
        return draws.overlay(doc, fields)

    def update(self, table_id: str, fn: Callable[[Tx], Commit[R]],
               hits: Sequence[tuple[str, str, int]] = ()) -> R:
        """The one write path: ``write.update`` with its failures as service
        errors, every logged change counted against its seat's budgets
        (``charge``), and every commit pushed through the
        fan-out as soon as Redis has it; ``hits``: rate counters, counted
        once, 429 ``rate_limited`` when over."""
        limits = self.limits
        tries = [0]

        def capped(tx: Tx) -> Commit[R]:
            commit = fn(tx)
            # A retry (doc None) still answers.
            if commit.doc is not None and commit.entry is not None:
                charge(commit.doc, commit.entry, limits)
            if commit.doc is not None and commit.links is not None and commit.links[0] == "p":
                _carry(tx, commit, tries[0])
            tries[0] += 1
            return commit

        try:
            primed = Primed(capped, fn.raw, fn.doc) if isinstance(fn, Primed) else capped
            return write.update(self.store, table_id, primed, hits, self.wrote)
        except KeyError:
            raise not_found() from None
        except Conflict:
            raise busy() from None
        except RateLimited as exc:
            raise rate_limited(exc.wait, "actions at this table") from None

    def action_hits(self, player: str, atype: str | None = None) -> list[tuple[str, str, int]]:
        """The rate counters one action of ``player`` counts against
        (the commit counts them with the write, as the table's): the seat's, and for
        chatter (``CHATTER``) the seat's chatter counter too, for a chain's
        anchor its anchor counter. No
        counter is shared by the table's seats: a shared one is what a few
        flooding seats used up for everyone."""
        lim = self.limits
        hits = [("act-seat", player, lim.seat_actions)]
        if atype in CHATTER:
            hits.append(("chat-seat", player, lim.chatter_rate))
        elif atype == "anchor":
            hits.append(("anchor-seat", player, lim.anchor_rate))
        return hits

    def refuse_random(self, fields: set[str], what: str) -> None:
        if fields and not self.fixed_random:
            raise ServiceError("invalid", "fixed_random_off",
                f"{what} may not carry random outcomes ({', '.join(sorted(fields))}) on this server.",
            )

    # -- actions ---------------------------------------------------------------

    def act(self, table_id: str, token: str | None, body: Any) -> ActionResult:
        schemas.validate(schemas.ACTION_BODY, body, "action-body")
        # The newest document this process knows (no read when it wrote or was
        # told of the table's last change); the commit checks it is current.
        raw0 = self.store.latest_raw(table_id) if plausible_id(table_id) else None
        if raw0 is None:
            raise not_found()
        for stored in (False, True):
            hits: list[tuple[str, str, int]] = []
            try:
                # Shared, read only (the seat, the version): the change is made on Tx.copy().
                doc0: TableDoc = self.store.parsed(table_id, raw0)
                # Counted against the phone that sends it, even when entered for
                # another seat: with the commit (write.update), or here when refused.
                atype = body["action"]["type"]
                hits = self.action_hits(authenticate(doc0, token, seated=True)["id"], atype)
                call = self._action_call(table_id, doc0, token, body)
                break
            except ServiceError as exc:
                if not stored and exc.kind != "rate_limited":
                    # Judged on a kept copy one change behind (a seat that just
                    # joined elsewhere)? Then again on the stored document.
                    current = self.store.load_raw(table_id)
                    if current is None:
                        raise not_found() from None
                    if current != raw0:
                        raw0 = current
                        continue
                if hits:
                    wait = self.store.rates.hit_many(hits, table=table_id)
                    if wait is not None:
                        raise rate_limited(wait, "actions at this table") from None
                raise
        if call.atype in linking.FAST:
            # A link is kept beside the document, and only the draw commits (linking.py).
            return linking.fast(self, table_id, token, body, raw0, doc0, call, hits)
        return self._commit_action(table_id, token, body, raw0, doc0, call, hits)

    def _action_call(self, table_id: str, doc0: TableDoc, token: str | None, body: Any) -> ActionCall:
        """What an action asks for, checked as far as it can be before the
        engine runs: its type and payload, ``as``, random outcomes, PIN tries."""
        engine = self.engine(doc0["game"])
        action = dict(body["action"])
        atype: str = action.pop("type")
        proxy_for: str | None = body.get("as")
        schema = action_schema(engine, atype)
        if schema is None or atype in PLATFORM_ONLY:
            # set_paper and set_phone reach the engine only with the platform's
            # phoneless and phone_back, which also pause and wake the seat's phone.
            raise ServiceError("invalid", "unknown_action", f"{doc0['game']} has no action {atype!r}"
                               + (f' (send "{PLATFORM_ONLY[atype]}" instead).' if atype in PLATFORM_ONLY else "."))
        schemas.validate(schema, action, f"{engine.name}:{atype}")
        handler = HANDLERS.get(atype)
        if proxy_for is not None and handler is not None:
            raise ServiceError("forbidden", "not_allowed", '"as" enters game actions only, not table changes.')
        pin: PinHash | None = None
        if atype in PIN_ACTIONS:
            pin = self._stretch_pin(table_id, authenticate(doc0, token, seated=True), atype, action["pin"])
        if handler is None:
            self.refuse_random(set(action) & set(engine.random_action_fields.get(atype, ())), "Actions")
        return ActionCall(engine, atype, action, handler, proxy_for, pin)

    def _stretch_pin(self, table_id: str, seat: Seat, atype: str, pin: str) -> PinHash | None:
        """A PIN's stretched hash (``unlock``: with the seat's stored salt; None
        when it has none, which the handler refuses), computed in a worker
        thread: ~25 ms of PBKDF2 on the event loop would stall every socket of
        the process. Counted first, 5 a seat per 10 minutes for each of
        ``pin`` and ``unlock``: a 4-digit PIN must not be guessable online,
        and a flood of PIN changes must not buy a phone that much CPU."""
        wait = self.store.rates.hit(atype, seat["id"], PIN_TRIES, window=PIN_WINDOW, table=table_id)
        if wait is not None:
            raise ServiceError("rate_limited", "rate_limited", f"Too many PIN attempts; retry in {wait} s.",
                           retry_after=wait)
        stored = seat.get("pin")
        if atype == "unlock" and stored is None:
            return None
        salt = stored["salt"] if atype == "unlock" and stored is not None else None
        return offload(lambda: pin_hash(pin, salt))

    def _commit_action(self, table_id: str, token: str | None, body: Any, raw0: str, doc0: TableDoc,
                       call: ActionCall, hits: list[tuple[str, str, int]]) -> ActionResult:
        # Whose phone is live decides when the host may step in (stall.py):
        # read before the change, for the two actions that ask.
        online = frozenset(self.store.presence.present(table_id)) if call.atype in STEP_IN else None
        states = self.store.states
        presence = self.store.presence
        ctx = Context(token, body["request_id"], body.get("version"), self.rng, self.stall, online,
                      lambda v: states.get(table_id, v), lambda: presence.present(table_id),
                      self.limits.draw_wait)

        def fn(tx: Tx) -> Commit[ActionResult]:
            commit = decide(tx, call, ctx)
            if commit.doc is not None:
                commit.drop_requests = self._expired(table_id, commit.doc["version"])
            return commit

        # Built on the document read above: one round trip when the table did not move since.
        # doc0 is only read (the seat, the version); the change is made on tx.copy().
        return self.update(table_id, Primed(fn, raw0, doc0), hits)

    def _expired(self, table_id: str, version: int) -> list[str]:
        """The request_ids to forget at ``version``: those older than the
        window, swept once per fifth of it, so the hash holds at most 1.2
        windows of records and a sweep costs one read per many actions."""
        window = self.limits.request_window
        if version % max(1, window // 5):
            return []
        return self.store.stale_requests(table_id, version - window)


def _carry(tx: Tx, commit: Commit[Any], attempt: int) -> None:
    """A change that passes a pending draw (``decide.PASS``) carries it in its
    document, so every instance's fan-out of it shows the draw still
    waiting. The first attempt takes it that none waits (no read: such
    changes are rare while one does) unless its document carries one; the
    store refuses that if one does (``CHANGED``), and the next attempt
    reads the links key."""
    assert commit.doc is not None
    fields = tx.links() if attempt or draws.pending(tx.doc) is not None else {}
    draws.overlay(commit.doc, fields)
    commit.links = ("p", draws.draw_id(fields), 0)
