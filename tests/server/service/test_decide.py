"""One action's decision with no store, socket or hub: ``decide`` on a plain
document (server/service/decide.py). The write loop and the store are tested
with Redis in tests/server/store/."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from server.errors import ServiceError
from server.model import TableDoc
from server.service import fairness
from server.service.decide import ActionCall, Context, decide
from server.service.platform_actions import HANDLERS
from server.service.seats import token_hash
from server.service.stall import StallRule
from server.store import Tx
from server.wire import dumps
from tests.toy_engine import TOY

HOST, GUEST = "host-token-" + "h" * 20, "guest-token-" + "g" * 20


def lobby() -> TableDoc:
    """A toy table's document in its lobby, two seats, as ``Joining`` makes it."""
    doc: TableDoc = {
        "id": "table-0001", "code": "ABCD", "game": "toy", "options": {"target": 20, "min_players": 2, "start": 0},
        "status": "lobby", "version": 2, "host": "p1",
        "seats": [{"id": "p1", "name": "Host", "th": token_hash(HOST)},
                  {"id": "p2", "name": "Guest", "th": token_hash(GUEST)}],
        "next_pid": 3, "state": None, "start": None, "round": 0,
        "undoable": [], "min_players": 2, "max_players": 8, "created": 0.0,
    }
    fairness.begin(TOY, doc, random.Random(1))
    return doc


def tx_of(doc: TableDoc, known: dict[str, Any] | None = None) -> Tx:
    def no_log(_table: str) -> list[Any]:
        raise AssertionError("this decision needs no log")

    return Tx(doc["id"], copy.deepcopy(doc), dumps(doc).decode(), dict(known or {}), read_log=no_log)


def ctx(token: str, rid: str, expected: int | None = None) -> Context:
    return Context(token, rid, expected, random.Random(3), StallRule(60, 30), None)


def call(atype: str, **payload: Any) -> ActionCall:
    return ActionCall(TOY, atype, payload, HANDLERS.get(atype), None)


def test_a_start_decides_the_new_document_its_entry_and_record() -> None:
    doc = lobby()
    before = copy.deepcopy(doc)
    tx = tx_of(doc)
    commit = decide(tx, call("start"), ctx(HOST, "r-1"))
    assert tx.doc == before, "the document read is never changed: the decision works on a copy"
    assert commit.doc is not None and commit.entry is not None
    assert commit.doc["version"] == 3 and commit.doc["status"] == "playing"
    assert commit.entry["v"] == 3 and commit.entry["by"] == "p1" and commit.entry["action"]["type"] == "start"
    assert commit.request == ("r-1", {"by": "p1", "result": commit.result, "v": 3})
    assert commit.result == {"version": 3, "events": commit.entry["events"]}
    assert commit.state is not None, "the fan-out is handed the state the start made"
    assert tx.assumed == ["r-1"], "the request id is taken for unseen; the commit checks it"


def test_a_game_action_after_the_start() -> None:
    started = decide(tx_of(lobby()), call("start"), ctx(HOST, "r-1")).doc
    assert started is not None
    commit = decide(tx_of(started), call("add", n=2), ctx(HOST, "r-2", expected=3))
    assert commit.doc is not None and commit.entry is not None
    assert commit.doc["version"] == 4 and commit.entry["kind"] == "game" and commit.entry["rid"] == "r-2"
    assert commit.doc["undoable"] == [4]
    assert commit.state["scores"]["p1"] == 2


def test_a_retried_request_is_answered_from_its_record_and_writes_nothing() -> None:
    doc = lobby()
    record = {"by": "p1", "result": {"version": 2, "events": []}, "v": 2}
    commit = decide(tx_of(doc, {"r-1": record}), call("start"), ctx(HOST, "r-1"))
    assert commit.doc is None and commit.result == record["result"]
    with pytest.raises(ServiceError) as exc:
        decide(tx_of(doc, {"r-1": record}), call("start"), ctx(GUEST, "r-1"))
    assert exc.value.code == "request_id_reused"


@pytest.mark.parametrize(("token", "expected", "code"), [
    (GUEST, None, "not_host"), (HOST, 1, "stale_version"), ("nope-" + "x" * 30, None, "bad_token")])
def test_a_refusal_raises_and_decides_nothing(token: str, expected: int | None, code: str) -> None:
    doc = lobby()
    before = copy.deepcopy(doc)
    tx = tx_of(doc)
    with pytest.raises(ServiceError) as exc:
        decide(tx, call("start"), ctx(token, "r-1", expected))
    assert exc.value.code == code
    assert tx.doc == before
