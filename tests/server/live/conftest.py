"""The live tests (sockets, fan-out, two instances) run on a single Redis and on a 3-master Redis Cluster
(``conftest.RedisCluster``): every key a script touches must share its
table's slot, and a table's channel lives on that slot's node. A test that
needs one kind asks for ``single_redis_url``."""

import pytest

from conftest import REDIS_KINDS, either_redis_url

redis_url = pytest.fixture(params=REDIS_KINDS)(either_redis_url)
