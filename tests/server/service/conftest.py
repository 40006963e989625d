"""The fixtures of the service tests that run on a real Redis: the store, and
the service over it with every registered game and a seeded generator (the
scopes' secrets repeat from run to run). A module that needs another service
(fixed random, another draw wait) defines its own ``tables``."""

from __future__ import annotations

import random

import pytest
import redis

from engines import registry
from server.service import Tables
from server.store import Store


@pytest.fixture
def store(redis_url: str) -> Store:
    return Store(redis.Redis.from_url(redis_url, decode_responses=True), ttl=600)


@pytest.fixture
def tables(store: Store) -> Tables:
    return Tables(store, registry.get, rng=random.Random(7))
