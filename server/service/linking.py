"""A pending draw's links and its making, beside the table document
(docs/fairness.md, "What it costs"): the fast path of ``draws.py``.

- ``link``: hashed here, then checked and kept in the table's links key by
  one script (``Store.take_link``: the draw still pending, the seat one of
  its contributors, its first link, the next of the chain the draw expects,
  its request recorded, the table told whom
  the draw still waits for by one small ``draw`` frame). No version, no log
  line, no snapshot.
- The last link missing (or ``draw_now``) makes the draw: ONE commit, built
  on every link read back from the key, whose script checks that no link
  came since (else it is built again) and clears the key.

Races: two last links at once both find nobody missing; one commit makes the
draw, the other finds it made and answers its link as counted (it is: the
key held it when the draw read it). A link racing ``draw_now``: stored
before the draw's commit, the commit sees one field more and is built again
with it; after it, the key no longer names the draw (``draw_over``). A link
of a draw made already, or of another: ``draw_over``, nothing written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.errors import ServiceError, rate_limited
from server.model import ActionResult, RequestRecord, TableDoc
from server.service import draws
from server.service.change import Call, sealed_seat
from server.service.decide import ActionCall, Context, record_outcome
from server.service.hostship import holds
from server.service.seats import authenticate
from server.service.stall import check_may_act
from server.store import Commit, Primed, Tx
from server.store.links import GIVEN, OVER, RATED, RECORDED, STRANGER, TAKEN, Link
from tablemate_verify.chain import step

if TYPE_CHECKING:
    from server.service.pipeline import Pipeline

#: The actions taken here, not by a handler in ``decide``.
FAST = frozenset({"link", "draw_now"})


def fast(pl: Pipeline, table_id: str, token: str | None, body: Any, raw0: str, doc0: TableDoc,
         call: ActionCall, hits: list[tuple[str, str, int]]) -> ActionResult:
    """``link`` or ``draw_now`` (``Pipeline.act``), ``doc0`` as read for it
    (this process's kept copy, maybe a change behind: only the seat is read
    of it; the pending draw is the links key's, checked by ``LINK``)."""
    me = authenticate(doc0, token, seated=True)["id"]
    rid: str = body["request_id"]
    if call.atype == "draw_now":
        now: ActionResult = pl.update(table_id, Primed(_draw_now(pl, call, token, rid), raw0, doc0), hits)
        return now
    draw, link = int(call.action["draw"]), str(call.action["link"])
    try:
        prev = step(link)
    except ValueError as exc:
        _count(pl, table_id, hits)
        raise ServiceError("invalid", "bad_link", str(exc)) from exc
    event = {"type": "linked", "player": me, "draw": draw}
    taken = pl.store.take_link(table_id, Link(draw, me, link, prev, rid, event), hits)
    if taken.status == RECORDED:
        record: RequestRecord = taken.record
        if record["by"] != me:
            raise ServiceError("conflict", "request_id_reused", "This request_id belongs to another seat.")
        return record["result"]
    if taken.status == RATED:
        raise rate_limited(taken.wait, "actions at this table")
    if taken.status == OVER:
        # Counted before the walk down the chain (up to its length in hashes), so
        # links sent again cost what any refused request does.
        _count(pl, table_id, hits)
        counted = _counted(pl, table_id, me, draw, link)
        if counted is not None:
            return counted
    if taken.status != TAKEN:
        if taken.status != OVER:
            _count(pl, table_id, hits)
        raise _refusal(taken.status)
    linked: ActionResult = {"version": taken.version, "events": [event]}
    if taken.fields is None:
        return linked
    # The last link: this request makes the draw, and gets the draw's result.
    made: ActionResult | None = pl.update(table_id, Primed(_make(pl, call, token, me, draw, rid, taken.fields), raw0, doc0))
    if made is not None:
        return made
    # Made already by a link that came at the same time: this one was in it.
    done: RequestRecord = pl.store.record_once(table_id, rid, {"by": me, "result": linked, "v": taken.version})
    return done["result"]


def _refusal(status: int) -> ServiceError:
    if status == OVER:
        return _over()
    if status == STRANGER:
        return ServiceError("conflict", "not_contributor", "This seat's phone is not part of this draw.")
    if status == GIVEN:
        return ServiceError("conflict", "link_given", "This seat's link for this draw is in already.")
    return ServiceError("conflict", "link_mismatch", "That is not the next link of this seat's "
                        "chain (one link per draw, in order).")


def _counted(pl: Pipeline, table_id: str, me: str, draw: int, link: str) -> ActionResult | None:
    """A link sent again (a new request) after its draw was made with it, by
    this page or by another tab of the same seat that answered first (one that
    slept sends a draw's link late): a link of the seat's chain the table has
    counted, so answered as taken, not ``draw_over`` (which tells a phone its
    part was left out, and makes it throw its chain away). Counted links step
    down from the chain's last one: at most ``k`` hashes, on this late path only."""
    doc = pl.store.load(table_id)
    chain = (doc or {}).get("fair", {}).get("chains", {}).get(me) if doc is not None else None
    if doc is None or chain is None:
        return None
    at = chain["last"]
    for _ in range(chain["k"]):
        if at == link:
            return {"version": doc["version"], "events": [{"type": "linked", "player": me, "draw": draw}]}
        at = step(at)
    return None


def _count(pl: Pipeline, table_id: str, hits: list[tuple[str, str, int]]) -> None:
    if hits:
        wait = pl.store.rates.hit_many(hits, table=table_id)
        if wait is not None:
            raise rate_limited(wait, "actions at this table")


def _over() -> ServiceError:
    return ServiceError("conflict", "draw_over",
                        "That draw was made already (or never announced); this link was not counted.")


def _context(pl: Pipeline, token: str | None, rid: str) -> Context:
    return Context(token, rid, None, pl.rng, pl.stall, None, lambda _v: None, lambda: (), pl.limits.draw_wait)


def _make(pl: Pipeline, call: ActionCall, token: str | None, me: str, draw: int, rid: str,
          fields: dict[str, Any]) -> Any:
    """The update that makes draw ``draw`` from the links the last one's
    script read (``fields``; a later attempt reads them again), or writes
    nothing when it was made already."""
    given: list[dict[str, Any]] = [fields]

    def fn(tx: Tx) -> Commit[ActionResult | None]:
        now = given.pop() if given else tx.links()
        if now.get("_draw") != draw or "_pending" not in now:
            return Commit(None, result=None)
        return _commit(pl, tx, call, token, me, draw, rid, now)
    return fn


def _draw_now(pl: Pipeline, call: ActionCall, token: str | None, rid: str) -> Any:
    def fn(tx: Tx) -> Commit[ActionResult]:
        seat = authenticate(tx.doc, token, seated=True)
        cached: RequestRecord | None = tx.cached_result(rid)
        if cached is not None:
            if cached["by"] != seat["id"]:
                raise ServiceError("conflict", "request_id_reused", "This request_id belongs to another seat.")
            return Commit(None, result=cached["result"])
        # As decide's: a sealed or paused seat does nothing (its link is refused
        # already: ``draws.contributors`` leaves it out).
        if seat.get("sealed"):
            raise sealed_seat()
        check_may_act(seat, call.atype)
        fields = tx.links()
        draws.check_draw_now(fields, int(call.action["draw"]))
        return _commit(pl, tx, call, token, seat["id"], int(call.action["draw"]), rid, fields)
    return fn


def _commit(pl: Pipeline, tx: Tx, call: ActionCall, token: str | None, me: str, draw: int, rid: str,
            fields: dict[str, Any]) -> Commit[Any]:
    """The draw's one commit: the pending action applied with the links in,
    settled and logged as every action is (``decide.record_outcome``)."""
    doc = draws.overlay(tx.copy(), fields)
    p = draws.held(fields, draw)
    c = Call(call.engine, doc, me, holds(doc, me), {}, pl.rng, tx.log, None, None)
    state = pl.store.states.get(tx.table_id, doc["version"])
    commit = record_outcome(tx, draws.make(c, p, state), me, call, _context(pl, token, rid), None)
    # The script checks that the links key still holds exactly what was read.
    commit.links = ("d", draw, len(fields))
    if commit.doc is not None:
        # The request records' sweep, as every action's commit (Pipeline._commit_action).
        commit.drop_requests = pl._expired(tx.table_id, commit.doc["version"])
    return commit
