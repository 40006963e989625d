"""How a phone comes to a table and to a seat: a new table (``create``), the
table a join code names, a new seat (a phone's, or the host's seat without a
phone), and the host's one-time rejoin code and its redemption (``claim``).
Every write goes through ``Pipeline.update``, as an action's does.
"""

from __future__ import annotations

import time
from typing import Any

from engines.base import EngineError
from server.errors import ServiceError
from server.model import Action, Claim, TableDoc
from server.service import draws, fairness, schemas
from server.service.change import Outcome, sealed_seat
from server.service.decide import PASS
from server.service.hostship import holds, seal_claim
from server.service.pipeline import Pipeline, log_entry, logged
from server.service.platform import claim_seat, issue_rejoin
from server.service.seats import (
    CLAIM_TTL,
    NO_TOKEN,
    authenticate,
    check_unique,
    clean_name,
    find_claim,
    new_claim,
    new_code,
    new_table_id,
    new_token,
    plausible_code,
    token_hash,
)
from server.service.stall import check_not_live
from server.store import Commit, Tx


class Joining:
    """Tables and seats: the writes before and beside a game's actions."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline


    def create(self, body: Any) -> tuple[TableDoc, str]:
        schemas.validate(schemas.CREATE_BODY, body, "create")
        engine = self.pipeline.engine(body["game"])
        options = dict(body.get("options") or {})
        self.pipeline.refuse_random(set(options) & set(engine.random_option_fields), "Options")
        options = schemas.options_with_defaults(engine, options)
        try:
            options = engine.normalize_options(options)
        except EngineError as exc:
            raise ServiceError("invalid", "bad_options", exc.message) from exc
        name = clean_name(body["name"])
        token = new_token()
        now = time.time()
        for _ in range(20):
            tid, code = new_table_id(), new_code()
            if not self.pipeline.store.reserve_code(code, tid):
                continue
            lo, hi = engine.player_limits(options)
            doc: TableDoc = {
                "id": tid, "code": code, "game": engine.name, "options": options,
                "status": "lobby", "version": 1, "host": "p1",
                "seats": [{"id": "p1", "name": name, "th": token_hash(token)}],
                "next_pid": 2, "state": None, "start": None, "round": 0,
                "undoable": [], "min_players": lo, "max_players": hi, "created": now,
            }
            fairness.begin(engine, doc, self.pipeline.rng)
            entry = log_entry(1, "p1", 0, "platform", {"type": "create", "name": name},
                              [{"type": "created", "player": "p1"}])
            if self.pipeline.store.create(doc, entry):
                return doc, token
        raise ServiceError("unavailable", "store_busy", "Could not allocate a table; try again.")

    def table_for_code(self, code: str) -> tuple[str, str]:
        """The table a join code names and its status. A code keeps naming its
        table after the start, so a late joiner is told the game has started
        (and offered the spectator view) rather than that no table exists."""
        code = code.strip().upper()
        tid = self.pipeline.store.code_table(code) if plausible_code(code) else None
        doc = self.pipeline.store.load(tid) if tid else None
        if tid is None or doc is None:
            raise ServiceError("not_found", "code_not_found", "No table has this code.")
        return tid, doc["status"]

    def join(self, table_id: str, body: Any) -> tuple[str, str]:
        """A phone takes a new seat: its id and its new token."""
        token = new_token()
        return self._add_seat(table_id, body, token, None), token

    def add_phoneless(self, table_id: str, token: str | None, body: Any) -> str:
        """The host (``token``) adds a seat without a phone (``"phone":
        false``): the same checks as a join, and no token at all
        (``seats.NO_TOKEN``)."""
        schemas.validate(schemas.JOIN_BODY, body, "join")
        if body.get("phone") is not False:
            raise ServiceError("invalid", "bad_phone", 'Only "phone": false adds a seat here; a phone joins without it.')
        return self._add_seat(table_id, body, None, token)

    def _add_seat(self, table_id: str, body: Any, new: str | None, host_token: str | None) -> str:
        """A seat at the end of the seat order: a phone's (``new``: its token)
        or, ``new`` None, one without a phone added by the host's token."""
        schemas.validate(schemas.JOIN_BODY, body, "join")
        phoneless = new is None
        name = clean_name(body["name"])
        self.pipeline.load(table_id)

        def fn(tx: Tx) -> Commit[str]:
            doc = tx.copy()
            by: str | None = None
            if phoneless:
                by = authenticate(doc, host_token, seated=True)["id"]
                if not holds(doc, by):
                    raise ServiceError("forbidden", "not_host", "Only the host can add a seat without a phone.")
            if doc["status"] != "lobby":
                raise ServiceError("conflict", "game_started", "This game has started; new seats are closed.")
            draws.refuse_during(doc, "join")  # a pending start was checked against these seats
            if len(doc["seats"]) >= doc["max_players"]:
                raise ServiceError("conflict", "table_full", f"This table is full ({doc['max_players']} seats).")
            check_unique(doc, name)
            pid = f"p{doc['next_pid']}"
            doc["next_pid"] += 1
            if new is None:
                doc["seats"].append({"id": pid, "name": name, "th": NO_TOKEN, "phone": False})
                action: Action = {"type": "join", "name": name, "phone": False, "player": pid}
            else:
                doc["seats"].append({"id": pid, "name": name, "th": token_hash(new)})
                action = {"type": "join", "name": name}
            out = Outcome(doc, action, [{"type": "joined", "player": pid}])
            return Commit(doc, logged(out, by or pid), result=pid)

        return self.pipeline.update(table_id, fn)

    def rejoin(self, table_id: str, token: str | None, player: str) -> str:
        """Host only: a one-time rejoin code for ``player``'s seat (``claim``
        redeems it); never a seat token."""
        code = new_claim()
        claim: Claim = {"h": token_hash(code), "exp": time.time() + CLAIM_TTL}
        sender = authenticate(self.pipeline.load(table_id), token, seated=True)["id"]
        online = frozenset(self.pipeline.store.presence.present(table_id))

        def fn(tx: Tx) -> Commit[None]:
            doc = tx.copy()
            seat = authenticate(doc, token, seated=True)
            if seat.get("sealed"):
                raise sealed_seat()
            me = seat["id"]
            # The stand-in brings the host's seat back this way (``hostship``).
            out = issue_rejoin(doc, holds(doc, me), player, {**claim, "by": me})
            # Mid-game a code moves the seat off the phone that holds it, as phoneless
            # does: not off a live one (the host would redeem it, then play the seat
            # from paper). In the lobby there is nothing to play for it. Checked after
            # the sender's powers and the seat (not_host, no_such_player come first).
            if doc["status"] != "lobby":
                check_not_live(doc, me, player, online)
            # A code made or redeemed while a draw waits moves no game nor seat it was checked against.
            return Commit(out.doc, logged(out, me), links=PASS)

        # Chatter: counted as such, so a host cannot fill the log with codes.
        self.pipeline.update(table_id, fn, self.pipeline.action_hits(sender, "rejoin"))
        return code

    def claim(self, table_id: str, body: Any) -> tuple[str, str]:
        """Redeems a rejoin code: the seat's id and its fresh token. The code
        dies on use; an unknown, used or expired one is 404 ``claim_not_found``
        (one code for all three: a refusal tells a guesser nothing)."""
        schemas.validate(schemas.CLAIM_BODY, body, "claim")
        new = new_token()
        self.pipeline.load(table_id)
        online = frozenset(self.pipeline.store.presence.present(table_id))

        def fn(tx: Tx) -> Commit[str]:
            doc = tx.copy()
            seat = find_claim(doc, body["claim"], time.time())
            if seat is None:
                raise ServiceError("not_found", "claim_not_found",
                               "This rejoin code was used already or has expired; ask the host for a new one.")
            # A code made while the seat's phone was away, redeemed once it is back:
            # the seat's own phone plays it (the code stays for when it is gone).
            if doc["status"] != "lobby":
                check_not_live(doc, "", seat["id"], online)
            pending = seat.get("claim")
            issuer = pending.get("by") if pending is not None else None
            out = claim_seat(doc, seat, token_hash(new))
            if seal_claim(doc, seat, issuer):
                # Sealed in the lobby too, and past play_again: a stand-in must
                # not make itself the host.
                seat["seal_kept"] = True
                if not seat.get("sealed"):
                    seat["sealed"] = True
                    out.events[0]["sealed"] = True
            return Commit(out.doc, logged(out, seat["id"]), result=seat["id"], links=PASS)

        return self.pipeline.update(table_id, fn), new
