"""One load run, in order: start Redis and the instances (through the replay proxy
with ``--route fly``), make the tables, connect every phone in waves, measure idle
CPU, warm up, drive the measured period with the generator's collector off, and
report every figure as one JSON-ready dict (bench/load.py's output)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import psutil
import redis

from bench import replay_proxy
from bench.loadkit.figures import Ticker, cpu_s, idle_cpu, instance_figures, kernel_s, pct
from bench.loadkit.phones import Crowd, Stats, phone_loop, pinger
from bench.loadkit.servers import (
    STATS_TOKEN,
    free_port,
    raise_fd_limit,
    start_instance,
    start_redis,
    workers,
)
from bench.loadkit.tables import driver, http, setup_tables


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """One run with bench/load.py's flags; back, its figures."""
    nofile = raise_fd_limit()
    procs: list[subprocess.Popen[bytes]] = []
    redis_proc = None
    proxy: replay_proxy.Running | None = None
    try:
        if args.redis_url:
            redis_url = args.redis_url
        else:
            rport = free_port()
            redis_proc = start_redis(rport)
            redis_url = f"redis://127.0.0.1:{rport}/0"
        r = redis.Redis.from_url(redis_url)
        r.flushall()
        mem0 = r.info("memory")["used_memory"]
        ports = [free_port() for _ in range(args.instances)]
        names = [f"m{k + 1}" for k in range(args.instances)]
        routed = args.route == "fly"
        procs = [start_instance(redis_url, p, args.root, replay_proxy.routing_env(n) if routed else None)
                 for p, n in zip(ports, names, strict=True)]
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        clients = bases  # where the phones send their requests and sockets
        if routed:
            # As deployed on Fly: every phone talks to the proxy, which lands it
            # on any instance and replays a table's request to the table's owner.
            replay_proxy.wait_routed(dict(zip(names, bases, strict=True)))
            proxy = replay_proxy.start(dict(zip(names, bases, strict=True)), free_port())
            clients = [proxy.base]
        server_procs = [w for m in procs for w in workers(m)] or [psutil.Process(m.pid) for m in procs]
        # Each instance's CPU with nothing to do: what it spends however few its actions.
        idle_bare = await idle_cpu(server_procs, args.idle)
        t0 = time.perf_counter()
        tables = setup_tables(clients, args.phones, args.seed, args.affinity == "table",
                              frozenset(filter(None, args.games.split(","))), not args.no_chains)
        setup_s = time.perf_counter() - t0
        mem_per_table = (r.info("memory")["used_memory"] - mem0) / max(1, len(tables))
        rss_idle = sum(p.memory_info().rss for p in server_procs) / 2**20
        crowd = Crowd(Stats(), args.token_in_url)
        stats = crowd.stats
        all_phones = [p for t in tables for p in t.phones]
        tasks = [asyncio.create_task(pinger(all_phones, crowd, args.ping))]
        t0 = time.perf_counter()
        for i in range(0, len(all_phones), 200):  # connect in waves, like a café filling up
            tasks += [asyncio.create_task(phone_loop(p, crowd)) for p in all_phones[i:i + 200]]
            await asyncio.sleep(0.05)
        deadline = time.perf_counter() + 120
        while stats.connected + stats.connect_errors < len(all_phones) and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        connect_s = time.perf_counter() - t0
        while any(p.version == 0 for p in all_phones if p.ws) and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        # The same holding every phone (their pings, the heartbeats, presence), no actions.
        idle_phones = await idle_cpu(server_procs, args.idle)
        if args.warmup > 0:
            # The first actions of a fresh process pay for what it has not done
            # yet (first code paths, caches, allocator growth): a warm-up at the
            # same rate, not measured (its errors are still counted).
            await driver(tables, args.rate, args.warmup, stats, args.seed + 1, args.action_timeout, args.prefer)
            stats.latencies.clear()
            stats.samples.clear()
            stats.actions = 0
        me = psutil.Process()
        redis_p = psutil.Process(redis_proc.pid) if redis_proc else None
        # Everything built so far lives for the whole run: move it out of the
        # collector's reach, then keep the collector out of the hot loop.
        gc.collect()
        gc.freeze()
        gc.disable()
        collections0 = sum(g["collections"] for g in gc.get_stats())
        ticker = Ticker(args.ticker_ms / 1000)
        ticker.start()
        heard0 = [http(b, "GET", "/healthz", token=STATS_TOKEN).get("redis") for b in bases]
        cpu0 = [cpu_s(p) for p in server_procs]
        sys0 = sum(kernel_s(p) for p in server_procs)
        me0, r0 = cpu_s(me), cpu_s(redis_p) if redis_p else 0.0
        proxy_p = psutil.Process(proxy.proc.pid) if proxy else None
        px0 = cpu_s(proxy_p) if proxy_p else 0.0
        try:
            sched = await driver(tables, args.rate, args.duration, stats, args.seed, args.action_timeout, args.prefer)
        finally:
            ticker.stop()
            collections = sum(g["collections"] for g in gc.get_stats()) - collections0
            gc.enable()
            gc.unfreeze()
        cpu1 = [cpu_s(p) for p in server_procs]
        sys1 = sum(kernel_s(p) for p in server_procs)
        me1, r1 = cpu_s(me), cpu_s(redis_p) if redis_p else 0.0
        px1 = cpu_s(proxy_p) if proxy_p else 0.0
        wall = sched.driven_s
        cpu = [(b - a) / wall * 100 for a, b in zip(cpu0, cpu1, strict=True)]
        server_cpu_s = sum(cpu1) - sum(cpu0)
        rss = [p.memory_info().rss / 2**20 for p in server_procs]
        health = [http(b, "GET", "/healthz", token=STATS_TOKEN) for b in bases]
        per_instance = instance_figures(heard0, [h.get("redis") for h in health],
                                        [b - a for a, b in zip(cpu0, cpu1, strict=True)],
                                        len(server_procs) == len(bases))
        if per_instance and len(server_procs) == len(bases):
            for k, row in enumerate(per_instance):
                row["idle_cpu_ms_per_s"] = idle_bare[k] if idle_bare else None
                row["idle_with_phones_cpu_ms_per_s"] = idle_phones[k] if idle_phones else None
        crowd.stopping = True
        silent = sum(1 for p in all_phones if p.ws is not None and p.version == 0)
        if silent:
            stats.errors["never_got_state"] = silent
        for p in all_phones:
            if p.ws is not None:
                await p.ws.close()
        for task in tasks:
            task.cancel()
        proxy_counts = proxy.stop() if proxy else None
        proxy = None
        lat = [x * 1000 for x in stats.latencies]
        if args.samples:
            # When the slow ones were sent (s from the first action) tells a
            # periodic stall (a round every 1 or 3 s) from a steady queue.
            t0 = min((t for t, *_ in stats.samples), default=0.0)
            Path(args.samples).write_text("".join(f"{t - t0:.4f} {x * 1000:.2f} {game} {seats}\n"
                                                  for t, x, game, seats in stats.samples))
        sizes: dict[str, int] = {}
        for t in tables:
            sizes[str(len(t.phones))] = sizes.get(str(len(t.phones)), 0) + 1

        def per_action(cpu_seconds: float) -> float | None:
            return round(cpu_seconds * 1000 / stats.actions, 2) if stats.actions else None

        return {
            "instances": args.instances, "phones": len(all_phones), "tables": len(tables),
            "table_sizes": dict(sorted(sizes.items(), key=lambda kv: int(kv[0]))),
            "games": sorted({t.game for t in tables}),
            "phones_connected": stats.connected, "connect_errors": stats.connect_errors,
            "reconnects": stats.reconnects,
            "setup_s": round(setup_s, 1), "connect_s": round(connect_s, 1), "warmup_s": args.warmup,
            "target_rate": args.rate, "actions": stats.actions, "sent": sched.sent,
            "actions_per_s": round(stats.actions / wall, 1),
            "latency_ms": {"p50": round(pct(lat, .5), 1), "p95": round(pct(lat, .95), 1),
                           "p99": round(pct(lat, .99), 1), "max": round(max(lat), 1) if lat else None,
                           "mean": round(statistics.fmean(lat), 1) if lat else None},
            "errors": stats.errors, "error_samples": stats.error_samples,
            "server_cpu_percent": [round(c) for c in cpu],
            "server_cpu_ms_per_action": per_action(server_cpu_s),
            "server_kernel_ms_per_action": per_action(sys1 - sys0),
            "server_rss_mb": [round(m) for m in rss],
            "server_rss_idle_mb": round(rss_idle),
            "rss_per_phone_kb": round((sum(rss) - rss_idle) * 1024 / stats.connected) if stats.connected else None,
            "loadgen_cpu_percent": round((me1 - me0) / wall * 100),
            "loadgen_max_pause_ms": round(ticker.max_pause_s * 1000, 1),
            "loadgen_max_pause_at_s": round(ticker.max_pause_at_s, 1) if ticker.max_pause_at_s else None,
            "loadgen_pauses_over_5ms": ticker.over_5ms,
            "loadgen_gc_collections": collections,
            "schedule_max_late_ms": round(sched.max_late_s * 1000, 1),
            "schedule_skipped": sched.skipped,
            "redis_cpu_percent": round((r1 - r0) / wall * 100) if redis_p else None,
            "redis_cpu_ms_per_action": per_action(r1 - r0) if redis_p else None,
            "redis_bytes_per_table": round(mem_per_table),
            "server_gc_max_pause_ms": [h.get("gc_max_pause_ms") for h in health],
            "affinity": args.affinity,
            "per_instance": per_instance,
            "route": args.route,
            "proxy": None if proxy_counts is None else {
                **proxy_counts, "cpu_percent": round((px1 - px0) / wall * 100),
                "cpu_ms_per_action": per_action(px1 - px0)},
            "fd_limit": nofile[0],
        }
    finally:
        if proxy:
            proxy.stop()
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if redis_proc:
            redis_proc.terminate()
