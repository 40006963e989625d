"""bench/compare.py end to end with a tiny workload: Tablemate's side always, the
boardgame.io peer too wherever Node and npm exist (npm ci runs if node_modules is
missing). No timing is asserted: figures belong in docs/performance.md."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_compare():
    spec = importlib.util.spec_from_file_location("bench_compare", ROOT / "bench/compare.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_compare"] = module
    spec.loader.exec_module(module)
    return module


def _clean(result: dict) -> None:
    assert result["phones_connected"] == result["phones"] >= 24
    assert result["connect_errors"] == 0
    assert result["actions"] > 0
    assert result["server_cpu_ms_per_action"] > 0
    # The kernel's share (on loopback a send also runs the receiver's TCP stack).
    assert 0 <= result["server_kernel_ms_per_action"] <= result["server_cpu_ms_per_action"]
    assert result["rss_per_phone_kb"] is not None
    assert result["loadgen_max_pause_ms"] >= 0
    assert not {k: v for k, v in result["errors"].items() if k != "unfinished"}, result["errors"]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_compare_runs_both_sides_on_a_tiny_workload(redis_server, capsys) -> None:
    compare = _load_compare()
    peer = shutil.which("node") is not None and shutil.which("npm") is not None
    argv = ["--phones", "24", "--rate", "10", "--duration", "3", "--gap", "0",
            "--redis-url", redis_server.url] + ([] if peer else ["--only", "tablemate"])
    result = compare.main(argv)
    out = capsys.readouterr().out
    assert "load average (1/5/15 min) at start" in out
    assert "| latency p99 ms |" in out
    tm = result["tablemate"]
    _clean(tm)
    assert tm["loadgen_gc_collections"] == 0  # the collector stays out of the hot loop
    if peer:
        bg = result["boardgameio"]
        _clean(bg)
        assert bg["version"] == "0.50.2"
        assert bg["table_sizes"] == tm["table_sizes"]  # the same workload, seat for seat
        assert bg["liveness"] == "default" and bg["ping_interval_ms"] == 10_000  # as boardgame.io ships


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_peer_pings_at_tablemates_bound_when_asked(capsys) -> None:
    """``--peer-liveness tablemate``: socket.io's own handshake tells each
    phone a ping every 3 s (and 2 s to answer), a silent link noticed within 5 s."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("no Node.js here: the boardgame.io peer cannot run")
    compare = _load_compare()
    result = compare.main(["--phones", "24", "--rate", "10", "--duration", "3", "--only", "boardgameio",
                           "--peer-liveness", "tablemate"])
    assert "boardgame.io's liveness: tablemate" in capsys.readouterr().out
    bg = result["boardgameio"]
    _clean(bg)
    assert bg["liveness"] == "tablemate" and bg["ping_interval_ms"] == 3_000
