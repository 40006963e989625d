"""The cluster client's pools wait for a free connection, as the single
Redis's pool does (TABLEMATE_REDIS_POOL_TIMEOUT, docs/deploy.md): a burst past
TABLEMATE_REDIS_POOL queues instead of failing at once, and a wait past the
timeout is a clear ``store_unavailable``."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from server.errors import StoreDown
from server.store.keys import doc_key
from server.store.store import Store


def one_connection_store(monkeypatch: pytest.MonkeyPatch, url: str, timeout: str) -> tuple[Store, Any]:
    """A store of the cluster with one connection per node; back, it and the
    pool of the node that serves table ``T1``'s keys."""
    monkeypatch.setenv("TABLEMATE_REDIS_POOL", "1")
    monkeypatch.setenv("TABLEMATE_REDIS_POOL_TIMEOUT", timeout)
    store = Store.connect(url, ttl=60)
    store.r.set(doc_key("T1"), '{"version": 1}')
    node = store.r.get_node_from_key(doc_key("T1"))
    return store, store.r.get_redis_connection(node).connection_pool


def test_a_command_waits_for_the_nodes_busy_connection(monkeypatch, redis_cluster_url) -> None:
    store, pool = one_connection_store(monkeypatch, redis_cluster_url, "30")
    held = pool.get_connection()
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(_attempt(store)))
    reader.start()
    # redis-py's default cluster pool refused the second command at once
    # ("Too many connections"); this one waits for the connection in use.
    reader.join(0.5)
    pool.release(held)
    reader.join(30)
    assert got == [{"version": 1}], got


def test_a_wait_past_the_pool_timeout_is_store_unavailable(monkeypatch, redis_cluster_url) -> None:
    store, pool = one_connection_store(monkeypatch, redis_cluster_url, "0.2")
    held = pool.get_connection()
    try:
        with pytest.raises(StoreDown, match="No connection available"):
            store.load("T1")
    finally:
        pool.release(held)
    assert store.load("T1") == {"version": 1}  # the freed connection serves again


def _attempt(store: Store) -> object:
    try:
        return store.load("T1")
    except StoreDown as exc:
        return exc
