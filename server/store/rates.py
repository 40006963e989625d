"""Rate counters in Redis (fixed windows), so a limit holds across every
instance: ``Rates`` counts a request in several counters in one round trip.
An action's own counters are counted with its commit instead
(``server/store/commit.py``), in the same window."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from server.store.keys import rate_key

#: The fixed window (s) of every rate counter.
RATE_WINDOW = 60


def wait_for(now: float, window: int) -> int:
    """Seconds until the rate window after the one ``now`` is in."""
    return max(1, int((int(now // window) + 1) * window - now) + 1)


class Rates:
    """The rate counters (``Store.rates``), on the store's client ``r``."""

    def __init__(self, r: Any) -> None:
        self.r = r

    def hit(self, bucket: str, client: str, limit: int, window: int = RATE_WINDOW,
            table: str | None = None) -> int | None:
        """Counts one request; returns seconds to wait when over ``limit``."""
        return self.hit_many([(bucket, client, limit)], window, table)

    def hit_many(self, hits: Sequence[tuple[str, str, int]], window: int = RATE_WINDOW,
                 table: str | None = None) -> int | None:
        """Counts one request in every ``(bucket, client, limit)`` at once, in
        one round trip; returns seconds to wait when any is over its limit.

        Fixed windows in Redis, so the limits hold across instances. A refused
        request stays counted only where it was over the limit: a seat
        flooding past its own limit does not use up its table's. ``table``:
        the counters are that table's (its hash tag, as its commit counts them).
        """
        now = time.time()
        keys = [rate_key(bucket, client, int(now // window), table) for bucket, client, _ in hits]
        # No MULTI: the keys may live on different cluster slots, and each
        # INCR is atomic on its own.
        with self.r.pipeline(transaction=False) as p:
            for key in keys:
                p.incr(key)
                p.expire(key, window + 1)
            counts = p.execute()[::2]
        over = [count > limit for count, (_, _, limit) in zip(counts, hits, strict=True)]
        if not any(over):
            return None
        if not all(over):
            with self.r.pipeline(transaction=False) as p:
                for key, refused in zip(keys, over, strict=True):
                    if not refused:
                        p.decr(key)
                p.execute()
        return wait_for(now, window)
