"""An action while its table's keys are half moved (resharding moves a slot's
keys a batch at a time): the commit script names every key of the table, some
on the old master and some on the new one, and Redis answers ``TRYAGAIN``. The
phone is told ``store_unavailable`` and the table is left as it was; once the
move ends, the same request (the same id) is applied, once, and every phone on
both instances sees it."""

from __future__ import annotations

from redis.crc import key_slot

from server.store.keys import doc_key
from tests.faults.heard import act, heard_tables, recovered, stored_version


def test_an_action_while_its_tables_keys_are_half_moved(aof_cluster, two_instances) -> None:
    one, two, tables = heard_tables(two_instances, aof_cluster.url, 4)
    table = tables[0]
    source = aof_cluster.master_of(table.key)
    target = next(n for n in aof_cluster.nodes if n is not source)
    before = stored_version(one.url, table)
    finish = aof_cluster.begin_move(table.key, target, keys=(doc_key(table.id),))
    try:
        # Reading follows the move (ASK): the table is served as stored.
        assert stored_version(one.url, table) == before
        status, body = table.host.act_http("note", request_id=f"{table.host.id}-half", text="half")
        assert status == 503 and body["error"]["code"] == "store_unavailable", (status, body)
        assert stored_version(two.url, table) == before, "a refused action changed the table"
        assert aof_cluster.node_client(source.port).execute_command(
            "CLUSTER", "COUNTKEYSINSLOT", key_slot(table.key.encode())) > 0, "the move ended early"
    finally:
        finish()
    # The phone's retry (the same request id): applied once, heard on both instances.
    v = act(table.host, "half")
    assert v == before + 1
    table.guest.wait_version(v)
    recovered(tables, one, two)
