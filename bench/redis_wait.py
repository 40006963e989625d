"""What ``TABLEMATE_REDIS_WAIT=1`` costs an action, with no fault (docs/deploy.md):

    .venv/bin/python -m bench.redis_wait [--rounds 2] [--actions 800]

Starts a Redis and one replica of it (loopback, no persistence), then, alternated
``--rounds`` times with the setting off and on:
- ``bench/action_cpu.py --gevent`` against that Redis: the server's CPU per action
  (median and mean; the commit then asks for ``WAIT`` with its script on the same
  link, and reads a second reply) and the master's;
- the wall time of one commit-like round trip, the store's own client sending a
  ``SET`` alone against ``SET`` + ``WAIT 1 1000`` together (``Lean.call_all``, as
  ``Committer._replicated`` sends them): what a phone waits longer per action, the
  replica's acknowledgement (p50 / p99 over ``--trips``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.loadkit.servers import free_port  # noqa: E402
from server.store.resp import Lean  # noqa: E402


def start(port: int, *extra: str) -> subprocess.Popen[bytes]:
    binary = shutil.which("redis-server")
    if not binary:
        sys.exit("redis-server not found (make test installs it)")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", tempfile.mkdtemp(), *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            redis.Redis(port=port).ping()
            return proc
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def wait_synced(replica: redis.Redis) -> None:
    deadline = time.monotonic() + 30
    while replica.info("replication").get("master_link_status") != "up":
        if time.monotonic() > deadline:
            raise TimeoutError("the replica never synced")
        time.sleep(0.1)


def action_cpu(url: str, wait: int, actions: int) -> tuple[float, float, float]:
    """(median, mean) server CPU ms per action and the master's, from bench/action_cpu.py."""
    env = {**os.environ, "TABLEMATE_REDIS_WAIT": str(wait), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(ROOT / "bench/action_cpu.py"), "--gevent", "--redis-url", url,
                          "--actions", str(actions)], env=env, capture_output=True, text=True, check=True).stdout
    found = re.search(r"server CPU per action: median ([\d.]+) ms, mean ([\d.]+) ms", out)
    redis_found = re.search(r"Redis CPU per action: ([\d.]+) ms", out)
    if not found or not redis_found:
        raise RuntimeError(f"bench/action_cpu.py said:\n{out}")
    return float(found[1]), float(found[2]), float(redis_found[1])


def wait_calls(port: int) -> int:
    """WAIT commands the master has run: proof the setting reached the commits."""
    return int(redis.Redis(port=port).info("commandstats").get("cmdstat_wait", {}).get("calls", 0))


def round_trips(port: int, wait: int, trips: int) -> tuple[float, float]:
    """p50 and p99 wall ms of a SET, alone or with WAIT 1 1000, on the store's own client."""
    lean = Lean.for_client(redis.Redis(port=port))
    assert lean is not None
    times = []
    for k in range(trips):
        commands: list[tuple[object, ...]] = [("SET", "tm:{bench}:doc", str(k))]
        if wait:
            commands.append(("WAIT", 1, 1000))
        t0 = time.perf_counter()
        replies = lean.call_all(commands)
        times.append(time.perf_counter() - t0)
        if wait and int(replies[-1]) < 1:
            raise RuntimeError("the replica did not acknowledge")
    times.sort()
    return times[len(times) // 2] * 1e3, times[int(len(times) * 0.99)] * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--actions", type=int, default=800)
    ap.add_argument("--trips", type=int, default=3000)
    args = ap.parse_args()
    mport, rport = free_port(), free_port()
    master = start(mport)
    replica = start(rport, "--replicaof", "127.0.0.1", str(mport))
    try:
        wait_synced(redis.Redis(port=rport))
        url = f"redis://127.0.0.1:{mport}/0"
        rows: dict[int, list[tuple[float, ...]]] = {0: [], 1: []}
        print(f"load average {os.getloadavg()[0]:.1f} at start")
        for r in range(args.rounds):
            for wait in (0, 1):
                waits0 = wait_calls(mport)
                cpu = action_cpu(url, wait, args.actions)
                if (wait_calls(mport) > waits0) != bool(wait):
                    raise RuntimeError(f"TABLEMATE_REDIS_WAIT={wait}, yet the commits sent WAIT "
                                       f"{wait_calls(mport) - waits0} times")
                trip = round_trips(mport, wait, args.trips)
                rows[wait].append((*cpu, *trip))
                print(f"round {r + 1}, TABLEMATE_REDIS_WAIT={wait}: server CPU ms/action median {cpu[0]:.2f}, "
                      f"mean {cpu[1]:.2f}; master {cpu[2]:.2f}; round trip p50 {trip[0]:.3f} ms, "
                      f"p99 {trip[1]:.3f} ms", flush=True)
        print("| TABLEMATE_REDIS_WAIT | server CPU ms / action (median, mean) | master CPU ms / action "
              "| round trip p50 / p99 ms |\n|---|---|---|---|")
        for wait, got in rows.items():
            med = statistics.fmean(g[0] for g in got)
            mean = statistics.fmean(g[1] for g in got)
            print(f"| {wait} | {med:.2f}, {mean:.2f} | {statistics.fmean(g[2] for g in got):.2f} "
                  f"| {statistics.fmean(g[3] for g in got):.3f} / {statistics.fmean(g[4] for g in got):.3f} |")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    finally:
        replica.terminate()
        master.terminate()


if __name__ == "__main__":
    main()
