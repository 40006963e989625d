"""What every fault test checks afterwards: every table is heard again on
both instances (new sockets get their first state, old sockets get pushes,
across instances both ways) and every phone's version converges."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from conftest import AppServer, wait_for
from server.store.keys import doc_key
from tests.server.livehelpers import LivePhone, http, open_live_table

#: Seconds a phone may take to see a version once the store answers again
#: (the issue's bound: a fault costs the phones a few seconds).
CONVERGE = 20.0


@dataclass
class Table:
    host: LivePhone  # connected to instance one
    guest: LivePhone  # connected to instance two

    @property
    def id(self) -> str:
        return self.host.table

    @property
    def key(self) -> str:
        return doc_key(self.id)


def open_tables(one: AppServer, two: AppServer, count: int) -> list[Table]:
    found = []
    for _ in range(count):
        host, guest = open_live_table(one.url, joiners=1)
        guest.base = two.url
        host.connect()
        guest.connect()
        status, body = host.act_http("start")
        assert status == 200, body
        found.append(Table(host, guest))
    return found


def heard_tables(two_instances: Callable[[str], tuple[AppServer, AppServer]], url: str,
                 count: int) -> tuple[AppServer, AppServer, list[Table]]:
    """Two instances on the store at ``url``, and ``count`` tables with a phone
    on each, every one heard both ways before the fault."""
    one, two = two_instances(url)
    tables = open_tables(one, two, count)
    all_heard(tables, one, two, "before")
    return one, two, tables


def recovered(tables: list[Table], one: AppServer, two: AppServer, tag: str = "after") -> None:
    """After the fault: every phone at its table's stored version, every table heard again."""
    converged(tables, one.url)
    all_heard(tables, one, two, tag)


def act(phone: LivePhone, text: str, timeout: float = 30.0) -> int:
    """The version of a note the phone adds over HTTP, sent again (the same
    request id) while the store is unavailable."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = phone.act_http("note", request_id=f"{phone.id}-{text}", text=text)
        if status == 200:
            return int(body["version"])
        assert status == 503 and body["error"]["code"] == "store_unavailable", (status, body)
        assert time.monotonic() < deadline, f"{text}: the store never took it"
        time.sleep(0.3)


def stored_version(base: str, table: Table) -> int:
    status, body = http(base, "GET", f"/api/tables/{table.id}", None, table.host.token)
    assert status == 200, body
    return int(body["version"])


def all_heard(tables: list[Table], one: AppServer, two: AppServer, tag: str) -> None:
    """Every table, both ways across the instances, and a fresh socket on each."""
    for t in tables:
        v = act(t.host, f"{tag}-one")
        t.guest.wait_version(v, timeout=CONVERGE)  # from one to two
        v = act(t.guest, f"{tag}-two")
        t.host.wait_version(v, timeout=CONVERGE)  # from two to one
        for app in (one, two):
            fresh = LivePhone(app.url, t.id, t.host.id, t.host.token)
            try:
                assert fresh.connect()["version"] >= v  # its first state
            finally:
                fresh.close()


def converged(tables: list[Table], base: str) -> None:
    """Every phone shows its table's stored version."""
    for t in tables:
        v = stored_version(base, t)
        for p in (t.host, t.guest):
            got = p.wait_version(v, timeout=CONVERGE)["version"]
            assert got == v, f"{t.id}: {p.id} at {p.base} shows {got}, the store {v}"


def healthy(app: AppServer) -> None:
    wait_for(lambda: http(app.url, "GET", "/healthz")[0] == 200, timeout=CONVERGE, what=f"{app.url} healthy")
