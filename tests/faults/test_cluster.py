"""A Redis Cluster's faults under two instances with phones on both: a master
killed (SIGKILL) and restarted, a master failed over to its replica, a master
paused (SIGSTOP) and resumed. Afterwards every table is heard again on both
instances and every phone converges, a change committed during the fault
included (on the old main a restarted master left the instances deaf)."""

from __future__ import annotations

import time
from collections.abc import Callable

from conftest import AppServer, RedisCluster, RedisServer
from tests.faults.heard import (
    CONVERGE,
    Table,
    act,
    all_heard,
    healthy,
    heard_tables,
    open_tables,
    recovered,
)
from tests.server.livehelpers import http


def spread(cluster: RedisCluster, tables: list[Table], one: AppServer, two: AppServer) -> tuple[Table, list[Table]]:
    """A table of the first table's master (the victim's), and those of the
    others. Table ids are random: when every one landed on the same master
    (one run in a few hundred for six tables on three masters), more are
    opened, and heard, until one lands elsewhere; ``tables`` gets them too."""
    victim = cluster.master_of(tables[0].key)
    for _ in range(50):
        others = [t for t in tables if cluster.master_of(t.key) is not victim]
        if others:
            return tables[0], others
        more = open_tables(one, two, 1)
        all_heard(more, one, two, "before")
        tables.extend(more)
    raise AssertionError("fifty tables on one master: the cluster's slots are not spread")


def a_victim(cluster: RedisCluster, two_instances: Callable[[str], tuple[AppServer, AppServer]]
             ) -> tuple[AppServer, AppServer, list[Table], RedisServer, list[Table]]:
    """Two instances with six tables heard, the master of the first table
    (the fault's victim) and the tables of the other masters."""
    one, two, tables = heard_tables(two_instances, cluster.url, 6)
    target, others = spread(cluster, tables, one, two)
    return one, two, tables, cluster.master_of(target.key), others


def test_a_master_killed_and_restarted(aof_cluster, two_instances) -> None:
    one, two, tables, victim, others = a_victim(aof_cluster, two_instances)
    victim.kill()
    # A change on a healthy master while the other is down (within the node
    # timeout the cluster still serves the healthy masters' slots).
    act(others[0].guest, "in-the-gap")
    # Past the node timeout: the cluster marks the master failed and, with
    # Redis's default cluster-require-full-coverage, stops serving every slot.
    time.sleep(7)
    victim.start()
    aof_cluster.wait_ok()
    recovered(tables, one, two)
    healthy(one)
    healthy(two)


def test_the_other_masters_tables_are_heard_while_one_master_is_down(partial_cluster, two_instances) -> None:
    """A master down, no replica, cluster-require-full-coverage no: its tables
    wait for it; every other table is heard on both instances meanwhile (each
    instance also has phones at the down master's table)."""
    one, two, tables, victim, others = a_victim(partial_cluster, two_instances)
    victim.kill()
    try:
        time.sleep(7)  # past the node timeout: the cluster marks it failed
        all_heard(others, one, two, "while-down")
        healthy(one)  # the store answers for the others: no instance is pulled
        healthy(two)
    finally:
        victim.start()
    partial_cluster.wait_ok()
    recovered(tables, one, two)


def test_a_master_failed_over_to_its_replica(replica_cluster, two_instances) -> None:
    one, two, tables = heard_tables(two_instances, replica_cluster.url, 6)
    victim = replica_cluster.master_of(tables[0].key)
    victim.kill()
    # Until the replica is elected the slot has no master: the action waits
    # out the 503s, then lands on the new master.
    act(tables[0].host, "in-the-failover", timeout=60)
    replica_cluster.wait_failover(victim)
    recovered(tables, one, two)
    victim.start()  # back as a replica of its replica: nothing moves
    replica_cluster.wait_ok()
    all_heard(tables, one, two, "rejoined")


def test_a_slot_moved(aof_cluster, two_instances) -> None:
    """Resharding: the old master unsubscribes every instance from the slot's
    channels; they find the new master and hear the table there."""
    one, two, tables = heard_tables(two_instances, aof_cluster.url, 6)
    moved, others = spread(aof_cluster, tables, one, two)
    aof_cluster.move_slot(moved.key, aof_cluster.master_of(others[0].key))
    # The first change after the move, made on one instance, reaches the other.
    v = act(moved.host, "after-the-move")
    moved.guest.wait_version(v, timeout=CONVERGE)
    recovered(tables, one, two)


def test_a_master_paused_and_resumed(aof_cluster, two_instances) -> None:
    one, two, tables, victim, others = a_victim(aof_cluster, two_instances)
    victim.pause()
    try:
        act(others[0].guest, "in-the-pause")
        # Past the listener's ping (feeds.HEALTH_CHECK) and its answer's timeout:
        # the instances give the paused master's connections up.
        time.sleep(12)
    finally:
        victim.resume()
    aof_cluster.wait_ok()
    recovered(tables, one, two)
    healthy(one)
    healthy(two)


def test_every_master_down_is_store_unavailable_then_the_tables_come_back(aof_cluster, two_instances) -> None:
    """No node answers at all: redis-py's cluster client then raises its own
    ``RedisClusterUnreachableError``, not a ``RedisError``. Every request is a
    503 ``store_unavailable`` the phones retry (it was a 500 ``internal``), and
    no instance logs a traceback a tick (the presence refresh did); once the
    masters are back every table is heard again on both instances."""
    one, two, tables = heard_tables(two_instances, aof_cluster.url, 4)
    for node in aof_cluster.nodes:
        node.kill()
    try:
        time.sleep(1.5)  # a few presence refreshes and heartbeats of both instances
        for app in (one, two):
            for method, path, body in (("GET", f"/api/tables/{tables[0].id}", None), ("GET", "/healthz", None),
                                       ("POST", "/api/tables", {"game": "camelup", "name": "A"})):
                status, answer = http(app.url, method, path, body, tables[0].host.token)
                error = answer.get("error", answer) if isinstance(answer, dict) else answer
                assert status == 503 and error["code"] == "store_unavailable", (app.url, path, status, answer)
            status, answer = tables[1].guest.act_http("note", request_id="all-down", text="all down")
            assert status == 503 and answer["error"]["code"] == "store_unavailable", (status, answer)
    finally:
        for node in aof_cluster.nodes:
            node.start()
    aof_cluster.wait_ok()
    act(tables[1].guest, "all-down")  # a change is taken again
    recovered(tables, one, two)
    for app in (one, two):
        healthy(app)
        logs = app.logs()
        assert "Traceback" not in logs and "unhandled error" not in logs, logs[-3000:]
