"""A load run's instruments: each process's CPU (and its kernel part, and per
thread for idle figures), the generator's own longest pause (a bound on what it
added to any latency), each instance's own actions and what its listener heard,
and percentiles."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import psutil


class Ticker:
    """Wakes every `period` seconds and keeps its worst lateness: the longest time this
    generator's event loop could not look at its sockets, which it would add to latency."""

    def __init__(self, period: float = 0.001) -> None:
        self.period = period
        self.max_pause_s = 0.0
        self.max_pause_at_s: float | None = None  # when, from the ticker's start
        self.over_5ms = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        start = time.perf_counter()
        due = start + self.period
        while True:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            now = time.perf_counter()
            late = now - due
            if late > self.max_pause_s:
                self.max_pause_s, self.max_pause_at_s = late, now - start
            if late > 0.005:
                self.over_5ms += 1
            due = now + self.period

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def stop(self) -> None:
        if self._task:
            self._task.cancel()



def _per(x: float, n: int, digits: int = 2) -> float | None:
    return round(x / n, digits) if n else None


def instance_figures(before: list[dict[str, int] | None], after: list[dict[str, int] | None],
                     cpu: list[float], one_worker_each: bool) -> list[dict[str, Any]] | None:
    """Per instance, over the measured period: the changes it committed (its
    own actions), what its listener heard from Redis (messages, bytes, those
    of tables it has no phone at), each per own action, and its CPU per own
    action (with one worker per instance, else None)."""
    out: list[dict[str, Any]] = []
    for k, (a, b) in enumerate(zip(before, after, strict=True)):
        if a is None or b is None:
            return None  # a build whose /healthz has no such figures
        own = b["commits"] - a["commits"]
        msgs, size = b["messages"] - a["messages"], b["bytes"] - a["bytes"]
        out.append({"instance": k, "own_actions": own, "redis_messages": msgs, "redis_bytes": size,
                    "foreign_messages": b["foreign"] - a["foreign"], "channels": b["channels"],
                    "messages_per_own_action": _per(msgs, own), "bytes_per_own_action": _per(size, own, 0),
                    "cpu_ms_per_own_action": _per(cpu[k] * 1000, own) if one_worker_each else None})
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]



def cpu_s(p: psutil.Process) -> float:
    t = p.cpu_times()
    total: float = t.user + t.system
    return total


async def idle_cpu(procs: list[psutil.Process], seconds: float) -> list[float] | None:
    """Each process's CPU in ms per second over ``seconds`` of no actions (None for 0).
    The phones keep pinging meanwhile: this loop only sleeps."""
    if seconds <= 0:
        return None
    before = [thread_cpu_ns(p) for p in procs]
    await asyncio.sleep(seconds)
    after = [thread_cpu_ns(p) for p in procs]
    # A thread that ended meanwhile is left out (its last moments uncounted);
    # one that started counts from zero.
    return [round(sum(ns - b.get(tid, 0) for tid, ns in a.items()) / 1e6 / seconds, 2)
            for b, a in zip(before, after, strict=True)]


def thread_cpu_ns(p: psutil.Process) -> dict[str, int]:
    """CPU ns of each of the process's threads, from the scheduler (/proc/PID/task/*/schedstat):
    ``cpu_times`` counts 10 ms ticks, too coarse for an idle process over a few seconds."""
    found = {}
    for task in Path(f"/proc/{p.pid}/task").iterdir():
        try:
            found[task.name] = int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError):
            continue  # the thread ended
    return found


def kernel_s(p: psutil.Process) -> float:
    """The process's CPU in the kernel: on loopback a send also runs the receiving
    side's TCP stack, which no change of the server's own language removes."""
    return float(p.cpu_times().system)
