"""CPU per action of the server's own path, measured in one process, so the
figure holds on a busy machine (no sockets, no load generator, no scheduler):

    .venv/bin/python bench/action_cpu.py [--tables 60] [--actions 1500] [--redis-url URL] [--gevent]

It starts its own redis-server (or uses --redis-url), makes tables of 3-8 seats
over the three games (like bench/load.py), registers one in-memory socket per
seat with the process's fan-out hub (its real pub/sub listener), then plays real
legal actions one after the other. Timed, per action: ``Tables.act`` (auth,
rate limits, validation, the engine, the commit) until the hub has handed every
seat of that table the new version (the listener, the per-seat view, its
encoding). Untimed: choosing the next action. Prints the median and mean CPU
ms per action of this process (all threads) and Redis's CPU per action.
Run it from a tree (PYTHONPATH) to measure that tree's server: the same
command on two builds compares them. ``--gevent`` runs it as the server runs
(gevent's monkey-patching, every thread a greenlet); without it the fan-out's
threads are OS threads that contend with the committing one for the GIL.
"""

from __future__ import annotations

import sys

if "--gevent" in sys.argv:
    # Before anything imports socket or threading, as gunicorn's gevent worker
    # does: the production server runs every socket and thread as a greenlet on
    # one OS thread. Without it the fan-out's threads are real ones and contend
    # with the committing one for the GIL, which the server never does.
    from gevent import monkey

    monkey.patch_all()

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import SEATS, fill  # noqa: E402
from engines import registry  # noqa: E402
from server import live  # noqa: E402
from server.config import Limits  # noqa: E402
from server.store import Store  # noqa: E402
from server.tables import Tables  # noqa: E402


class Socket:
    """Keeps the last state frame (the next action is picked from it, whatever
    presence frames the hub's rounds sent since); tells the waiting action when
    its table is done."""

    def __init__(self, bench: Bench) -> None:
        self.bench, self.last = bench, ""
        self.conn: Any = None

    def send(self, data: str) -> None:
        if data.startswith('{"type":"state"'):
            self.last = data
        self.bench.check()

    def close(self, **_: Any) -> None:
        pass


class Bench:
    def __init__(self) -> None:
        self.want = 0
        self.conns: list[Any] = []
        self.done = threading.Event()

    def check(self) -> None:
        if self.want and all(c.sent_version >= self.want for c in self.conns):
            self.done.set()


def redis_cpu(r: redis.Redis) -> float:
    info = r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=60)
    ap.add_argument("--actions", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--redis-url")
    ap.add_argument("--gevent", action="store_true",
                    help="run under gevent's monkey-patching, as the production server does")
    args = ap.parse_args()
    proc = None
    url = args.redis_url
    if url is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        tmp = tempfile.mkdtemp(prefix="tm-cpu-")
        proc = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(port),
                                 "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tmp],
                                stdout=subprocess.DEVNULL)
        url = f"redis://127.0.0.1:{port}/0"
        for _ in range(100):
            try:
                if redis.Redis.from_url(url).ping():
                    break
            except redis.ConnectionError:
                time.sleep(0.05)
    try:
        run(url, args)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(5)


def run(url: str, args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    store = Store.connect(url, ttl=3600)
    big = 10**9
    # Seeded draws (dice, cards): the same actions on every run of one seed.
    tables = Tables(store, registry.get, limits=Limits(seat_actions=big, table_actions=big),
                    rng=random.Random(args.seed + 1))
    hub = live.Hub(tables)
    hub.ensure_listening()
    games = [g for g in registry.names() if g in SEATS]
    plans = []
    for i in range(args.tables):
        game = games[i % len(games)]
        n = rng.randint(*SEATS[game])
        doc, host = tables.create({"game": game, "name": "Host"})
        tokens = [("p1", host)] + [(pid, tok) for pid, tok in
                                   (tables.join(doc["id"], {"name": f"P{k + 2}"}) for k in range(n - 1))]
        tables.act(doc["id"], host, {"action": {"type": "start"}, "request_id": "start"})
        bench = Bench()
        for pid, tok in tokens:
            sock = Socket(bench)
            conn = live.Connection(sock, doc["id"], pid, tok)
            sock.conn = conn
            hub.add(conn)
            bench.conns.append(conn)
            conn.send_state(tables.snapshot(tables.load(doc["id"]), pid))
        plans.append((doc["id"], game, bench, dict(zip([p for p, _ in tokens], [t for _, t in tokens], strict=True))))
    r = redis.Redis.from_url(url)
    cpu: list[float] = []
    skipped = lost = 0
    r0 = redis_cpu(r)
    for k in range(args.actions):
        tid, game, bench, seat_tokens = plans[rng.randrange(len(plans))]
        options = []
        for conn in bench.conns:
            snap = orjson.loads(conn.ws.last) if conn.ws.last.startswith('{"type":"state"') else None
            if snap is None:
                continue
            options += [(conn.player, a) for t in snap["legal"]
                        if (a := fill(game, t, snap["view"], rng)) is not None]
        if not options:
            skipped += 1
            continue
        player, action = rng.choice(options)
        bench.done.clear()
        t0 = time.process_time()
        result = tables.act(tid, seat_tokens[player], {"action": action, "request_id": f"b{k}"})
        bench.want = result["version"]
        bench.check()
        if not bench.done.wait(10):
            print(f"fan-out did not arrive: {tid} ({game}) at version {bench.want}", file=sys.stderr)
            lost += 1
            continue
        cpu.append(time.process_time() - t0)
        bench.want = 0
    r1 = redis_cpu(r)
    hub.stop.set()
    phones = sum(len(b.conns) for _, _, b, _ in plans)
    print(f"load average {os.getloadavg()[0]:.1f}; {len(plans)} tables, {phones} seats, "
          f"{len(cpu)} actions ({skipped} picks with nothing to play, {lost} fan-outs lost)")
    print(f"server CPU per action: median {statistics.median(cpu) * 1e3:.2f} ms, "
          f"mean {statistics.fmean(cpu) * 1e3:.2f} ms")
    print(f"Redis CPU per action: {(r1 - r0) / max(1, len(cpu)) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
