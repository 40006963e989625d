"""The load benchmark's short mode as a smoke check: it runs end to end on real
games and real processes. No timing is asserted (figures belong in
docs/performance.md, measured on a quiet machine)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from bench import load


@pytest.mark.slow
def test_load_benchmark_short_mode(redis_server) -> None:
    # On a thread of its own: the script runs its own asyncio loop, and this test
    # worker may hold Playwright's (the e2e tests' session fixture) on its main thread.
    with ThreadPoolExecutor(1) as one:
        result = one.submit(load.main, ["--short", "--redis-url", redis_server.url]).result()
    assert result["phones_connected"] == result["phones"] >= 300
    assert result["connect_errors"] == 0
    assert set(result["games"]) == {"camelup", "countup", "kingup"}
    assert result["actions"] > 0
    assert not {k: v for k, v in result["errors"].items() if k != "unfinished"}, result["errors"]
