"""One Redis's faults under two instances with phones on both: killed
(SIGKILL) and restarted with its AOF, and paused (SIGSTOP) past the
listener's ping. Afterwards every table is heard again on both instances and
every phone converges."""

from __future__ import annotations

import time

from tests.faults.heard import all_heard, converged, healthy, open_tables


def test_redis_killed_and_restarted(aof_redis, two_instances) -> None:
    one, two = two_instances(aof_redis.url)
    tables = open_tables(one, two, 3)
    all_heard(tables, one, two, "before")
    aof_redis.kill()
    time.sleep(1)
    aof_redis.start()
    converged(tables, one.url)
    all_heard(tables, one, two, "after")
    healthy(one)
    healthy(two)


def test_redis_paused_and_resumed(aof_redis, two_instances) -> None:
    one, two = two_instances(aof_redis.url)
    tables = open_tables(one, two, 3)
    all_heard(tables, one, two, "before")
    aof_redis.pause()
    try:
        time.sleep(12)
    finally:
        aof_redis.resume()
    converged(tables, one.url)
    all_heard(tables, one, two, "after")
    healthy(one)
    healthy(two)
