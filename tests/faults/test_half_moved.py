"""An action while its table's keys are half moved (resharding moves a slot's
keys a batch at a time): the commit script names every key of the table, some
on the old master and some on the new one, and Redis answers ``TRYAGAIN``. The
phone is told ``store_unavailable`` and the table is left as it was; once the
move ends, the same request (the same id) is applied, once, and every phone on
both instances sees it. The same with ``TABLEMATE_REDIS_WAIT=1``, whose commit
goes to the table's master over the store's own client (replicas needed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from redis.crc import key_slot

from conftest import AppServer
from server.store.keys import doc_key
from tests.faults.conftest import APP_ENV
from tests.faults.heard import act, heard_tables, recovered, stored_version


@pytest.mark.parametrize("cluster_kind, wait", [("aof_cluster", "0"), ("replica_cluster", "1")],
                         ids=["no-wait", "redis-wait"])
def test_an_action_while_its_tables_keys_are_half_moved(request, cluster_kind: str, wait: str) -> None:
    cluster = request.getfixturevalue(cluster_kind)
    started: list[AppServer] = []

    def two(url: str) -> tuple[AppServer, AppServer]:
        started.extend(AppServer(url, {**APP_ENV, "TABLEMATE_REDIS_WAIT": wait}) for _ in range(2))
        return started[0], started[1]

    try:
        check(cluster, *heard_tables(two, cluster.url, 4))
    finally:
        for app in started:
            app.close()


def check(cluster, one: AppServer, two: AppServer, tables) -> None:
    table = tables[0]
    source = cluster.master_of(table.key)
    target = next(n for n in masters(cluster) if n is not source)
    before = stored_version(one.url, table)
    finish = cluster.begin_move(table.key, target, keys=(doc_key(table.id),))
    try:
        # Reading follows the move (ASK): the table is served as stored.
        assert stored_version(one.url, table) == before
        status, body = table.host.act_http("note", request_id=f"{table.host.id}-half", text="half")
        assert status == 503 and body["error"]["code"] == "store_unavailable", (status, body)
        assert stored_version(two.url, table) == before, "a refused action changed the table"
        assert cluster.node_client(source.port).execute_command(
            "CLUSTER", "COUNTKEYSINSLOT", key_slot(table.key.encode())) > 0, "the move ended early"
    finally:
        finish()
    # The phone's retry (the same request id): applied once, heard on both instances.
    v = act(table.host, "half")
    assert v == before + 1
    table.guest.wait_version(v)
    recovered(tables, one, two)


def masters(cluster) -> Iterator:
    for node in cluster.nodes:
        if cluster.node_client(node.port).execute_command("ROLE")[0] == "master":
            yield node
