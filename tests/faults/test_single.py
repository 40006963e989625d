"""One Redis's faults under two instances with phones on both: killed
(SIGKILL) and restarted with its AOF, and paused (SIGSTOP) past the
listener's ping. Afterwards every table is heard again on both instances and
every phone converges."""

from __future__ import annotations

import time

from tests.faults.heard import healthy, heard_tables, recovered


def test_redis_killed_and_restarted(aof_redis, two_instances) -> None:
    one, two, tables = heard_tables(two_instances, aof_redis.url, 3)
    aof_redis.kill()
    time.sleep(1)
    aof_redis.start()
    recovered(tables, one, two)
    healthy(one)
    healthy(two)


def test_redis_paused_and_resumed(aof_redis, two_instances) -> None:
    one, two, tables = heard_tables(two_instances, aof_redis.url, 3)
    aof_redis.pause()
    try:
        time.sleep(12)
    finally:
        aof_redis.resume()
    recovered(tables, one, two)
    healthy(one)
    healthy(two)
