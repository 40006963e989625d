"""Schemathesis against ``/api/openapi.json``: no 5xx, every response as documented.

The document is fetched from the app itself (``from_wsgi``) and every operation is
fuzzed in-process against an app on a real Redis. Random ids and tokens would only
ever meet ``404``/``401``, so each case may have its table id, seat token, seat id,
join code or action swapped for real ones from tables opened for every registered
game (lobby and started), which lets generated actions reach the engines.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from server import create_app
from tests.toy_engine import TOY

CONFIG = {"EXTRA_ENGINES": [TOY], "RATE_CREATE": 100000, "RATE_JOIN": 100000, "RATE_CODE": 100000}

# The embedded store is enough to serve the document; the cases run on real Redis.
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", create_app({**CONFIG, "REDIS_URL": None}))

CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance]


class Seat:
    def __init__(self, table: str, pid: str, token: str) -> None:
        self.table, self.id, self.token = table, pid, token


class Pool:
    """Real tables (one lobby, one started table per game) and their seats."""

    def __init__(self, client: Any, games: list[dict[str, Any]]) -> None:
        self.client = client
        self.seats: list[Seat] = []
        self.codes: list[str] = []
        #: Rejoin codes the host was given, by table: a claim case may redeem one.
        self.claims: dict[str, list[str]] = {}
        for game in games:
            n = max(game["min_players"], min(3, game["max_players"]))
            self._open(game["name"], n, start=True)
        self._open("toy", 3, start=False)

    def _open(self, game: str, n: int, start: bool) -> None:
        r = self.client.post("/api/tables", json={"game": game, "name": "Host"})
        assert r.status_code == 201, r.json
        tid = r.json["table"]
        seats = [Seat(tid, "p1", r.json["player"]["token"])]
        for i in range(n - 1):
            j = self.client.post(f"/api/tables/{tid}/players", json={"name": f"P{i + 2}"})
            assert j.status_code == 201, j.json
            seats.append(Seat(tid, j.json["player"]["id"], j.json["player"]["token"]))
        if start:
            r = self.client.post(f"/api/tables/{tid}/actions", headers=auth(seats[0].token),
                                 json={"action": {"type": "start"}, "request_id": f"start-{tid}"})
            assert r.status_code == 200, r.json
        else:
            self.codes.append(r.json["code"])
        self.seats += seats

    def track(self, case: Any, response: Any) -> None:
        """Keeps the pool's tokens valid: a redeemed rejoin code replaces a seat's token."""
        if response.status_code == 200 and case.operation.path.endswith("/rejoin"):
            self.claims.setdefault(case.path_parameters["table_id"], []).append(response.json()["claim"])
        elif response.status_code == 201 and case.operation.path.endswith("/claim"):
            player = response.json()["player"]
            for seat in self.seats:
                if seat.table == case.path_parameters["table_id"] and seat.id == player["id"]:
                    seat.token = player["token"]
        elif response.status_code == 201 and case.operation.path.endswith("/players"):
            player = response.json()["player"]
            if "token" in player:  # a seat without a phone gets none: nobody can act as it
                self.seats.append(Seat(case.path_parameters["table_id"], player["id"], player["token"]))

    def legal(self, seat: Seat) -> list[dict[str, Any]]:
        r = self.client.get(f"/api/tables/{seat.table}", headers=auth(seat.token))
        return r.json["legal"] if r.status_code == 200 else []


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def app(redis_url: str):
    return create_app({**CONFIG, "REDIS_URL": redis_url})


@pytest.fixture
def pool(app) -> Pool:
    client = app.test_client()
    return Pool(client, client.get("/api/games").json["games"])


def _pick(data: Any, weighted: dict[str, int], label: str) -> str:
    """A weighted choice (Hypothesis shrinks towards the first key)."""
    return data.draw(st.sampled_from([k for k, w in weighted.items() for _ in range(w)]), label=label)


def _index(data: Any, items: list[Any], label: str) -> Any:
    # The pool grows and the tables move on between cases: drawing from a fixed range
    # keeps the drawn choices independent of that state (else Hypothesis reports a
    # flaky strategy when it replays a case).
    i = data.draw(st.integers(0, 63), label=label)
    return items[i % len(items)] if items else None


def _substitute(case: Any, data: Any, pool: Pool) -> None:
    """Swaps generated ids, tokens and actions for real ones, most of the time."""
    seat: Seat | None = None
    params = case.path_parameters if case.path_parameters is not None else {}
    if "table_id" in params and _pick(data, {"real": 4, "generated": 1}, "table") == "real":
        seat = _index(data, pool.seats, "seat")
        params["table_id"] = seat.table
    if "player" in params and _pick(data, {"real": 3, "generated": 1}, "player id") == "real":
        params["player"] = data.draw(st.sampled_from(["p1", "p2", "p3", "p4"]), label="player")
    if "code" in params and _pick(data, {"real": 1, "generated": 1}, "code") == "real":
        params["code"] = _index(data, pool.codes, "code")
    headers = case.headers if case.headers is not None else {}
    who = _pick(data, {"own": 6, "generated": 1, "none": 1, "other": 1, "garbage": 1}, "auth")
    if who == "own" and seat is not None:
        headers["Authorization"] = f"Bearer {seat.token}"
    elif who == "none":
        headers.pop("Authorization", None)
    elif who == "other":
        headers["Authorization"] = f"Bearer {_index(data, pool.seats, 'other seat').token}"
    elif who == "garbage":
        headers["Authorization"] = data.draw(
            st.sampled_from(["Bearer x", "Basic abc", "Bearer", "bearer  ", "Bearer \u00e9"]), label="garbage")
    # The WSGI transport hands bodies over as sent and does not decompress:
    # ask for none (compression has its own tests in test_web.py).
    headers["Accept-Encoding"] = "identity"
    case.headers = headers
    body = case.body
    if case.operation.path.endswith("/claim") and isinstance(body, dict) and seat is not None:
        if _pick(data, {"real": 1, "generated": 1}, "claim") == "real":
            code = _index(data, pool.claims.get(seat.table, []), "claim code")
            if code is not None:
                body["claim"] = code
        return
    if seat is None or who != "own" or not case.operation.path.endswith("/actions") or not isinstance(body, dict):
        return
    how = _pick(data, {"legal": 5, "generated": 3, "stale": 1}, "action")
    if how == "legal":
        # A template the seat may send now (free input missing: the server says why).
        template = _index(data, pool.legal(seat), "legal template")
        if template is not None:
            body["action"] = dict(template)
    if how != "stale":
        body.pop("version", None)


@schema.parametrize()
@schema.given(data=st.data())
@settings(max_examples=int(os.environ.get("TABLEMATE_FUZZ_EXAMPLES", "100")), deadline=None,
          derandomize=True, database=None, suppress_health_check=list(HealthCheck))
def test_api(case, data, app, pool) -> None:
    _substitute(case, data, pool)
    response = case.call_and_validate(app=app, checks=CHECKS)
    pool.track(case, response)
