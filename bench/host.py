"""How much dearer work gets on this host after the process has slept.

    python bench/host.py

The load benchmark's CPU per action depends on the host as much as on the code:
on a virtual machine a process that sleeps between events (a server at 30 % of a
core sleeps most of the time) wakes to cold caches and pays for the halt and the
wake-up itself, so the same work costs more CPU at 100 actions/s than at 200/s,
and more on one host than on another. This prints, for sleeps of 0, 1 and 10 ms
between repetitions, the CPU time of a fixed piece of pure-Python work and of one
send + receive of 1 KB over a socket pair (the kind of system call every frame
costs), so figures from two hosts (docs/performance.md) can be told apart from a
change in the code. Medians of ``--reps`` repetitions; nothing else is started.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import time


def work() -> dict[str, int]:
    """A fixed piece of interpreter work: small strings and a dict, as a request makes."""
    d = {}
    for i in range(300):
        d[str(i)] = i * 2
    return d


def measure(gap: float, reps: int) -> tuple[float, float]:
    """Median CPU microseconds of ``work()`` and of a 1 KB socket round trip,
    each repetition after sleeping ``gap`` seconds."""
    a, b = socket.socketpair()
    payload = b"x" * 1000
    cpu_work: list[float] = []
    cpu_io: list[float] = []
    try:
        for _ in range(reps):
            if gap:
                time.sleep(gap)
            t = time.process_time()
            work()
            cpu_work.append(time.process_time() - t)
            t = time.process_time()
            a.sendall(payload)
            b.recv(2000)
            cpu_io.append(time.process_time() - t)
    finally:
        a.close()
        b.close()
    return statistics.median(cpu_work) * 1e6, statistics.median(cpu_io) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=400)
    args = ap.parse_args()
    hot_work, hot_io = measure(0.0, args.reps)
    print(f"after no sleep: work {hot_work:.1f} us, socket round trip {hot_io:.1f} us")
    for gap in (0.001, 0.010):
        w, io = measure(gap, args.reps)
        print(f"after {gap * 1000:.0f} ms asleep: work {w:.1f} us ({w / hot_work:.2f}x), "
              f"socket round trip {io:.1f} us ({io / hot_io:.2f}x)")


if __name__ == "__main__":
    main()
