"""``TABLEMATE_REDIS_WAIT``: a change is acknowledged once a replica has it
(WAIT with the commit, on its link); one that reached none in time is refused
(``TimeoutError``: 503 ``store_unavailable``) though the master wrote it, so
the phone sends it again and gets the recorded answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from conftest import RedisServer, wait_for
from server.service.write import update
from server.store import Store, commit
from tests.server.store.test_store import bump, make_doc


@pytest.fixture
def master_and_replica() -> Iterator[tuple[RedisServer, RedisServer]]:
    master = RedisServer()
    replica = RedisServer(extra_args=("--replicaof", "127.0.0.1", str(master.port)))
    try:
        wait_for(lambda: replica.client().info("replication")["master_link_status"] == "up", what="replica in sync")
        yield master, replica
    finally:
        replica.close()
        master.close()


def test_a_change_is_acknowledged_once_a_replica_has_it(master_and_replica, monkeypatch) -> None:
    master, replica = master_and_replica
    monkeypatch.setenv("TABLEMATE_REDIS_WAIT", "1")
    monkeypatch.setattr(commit, "WAIT_MS", 300)
    store = Store.connect(master.url, ttl=60)
    assert store.committer.replicas == 1
    store.create(make_doc(), {"v": 1})
    update(store, "table-0001", bump)
    assert replica.client().get("tm:{table-0001}:ver") == "2"  # there before the answer
    replica.kill()
    with pytest.raises(redis.TimeoutError, match="reached 0 of 1 replicas"):
        update(store, "table-0001", bump)
    assert master.client().get("tm:{table-0001}:ver") == "3"  # written, never acknowledged


def test_without_the_setting_no_replica_is_waited_for(master_and_replica) -> None:
    master, replica = master_and_replica
    replica.kill()
    store = Store.connect(master.url, ttl=60)
    assert store.committer.replicas == 0
    store.create(make_doc(), {"v": 1})
    update(store, "table-0001", bump)
    assert master.client().get("tm:{table-0001}:ver") == "2"
