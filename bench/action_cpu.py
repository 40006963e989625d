"""CPU per action of the server's own path, measured in one process, so the
figure holds on a busy machine (no network, no load generator, no scheduler):

    .venv/bin/python bench/action_cpu.py [--tables 60] [--actions 1500] [--redis-url URL] [--gevent] [--settle MS]
                                         [--games camelup] [--prefer pyramid] [--root DIR]

It starts its own redis-server (or uses --redis-url), makes tables of 3-8 seats
over the three games (like bench/load.py), registers one socket per seat with the
process's fan-out hub (its real pub/sub listener; a socket pair whose far end the
bench reads, so the hub writes its own frames as it does to a phone), then plays
real legal actions one after the other. Timed, per action: ``Tables.act`` (auth,
rate limits, validation, the engine, the commit) until the hub has handed every
seat of that table the new version (the listener, the per-seat view, its
encoding). Untimed: choosing the next action. Prints the median and mean CPU
ms per action of this process (all threads) and Redis's CPU per action, and
the same per action type (a Camel Up roll is ``pyramid``). Its seats anchor no
hash chains, so every draw is made at once (docs/fairness.md: a roll the phones
take part in is ``bench/load.py``'s to time) unless ``--chains``: then every
seat anchors one at the start, and an action the phones take part in is timed
from its announce through each waiting seat's link (``Tables.act``, one after
the other, as their frames would come) to the draw's push; ``--seeds`` makes each seat first
send its seed for every open scope it has not seeded, as phones did in builds
from before issue 38 (time such a build with it).
``--root <checkout>`` (or ``PYTHONPATH=<tree>``) measures that checkout's
server with its own .venv: the same command on two builds compares them. ``--gevent`` runs it as the server runs
(gevent's monkey-patching, every thread a greenlet); without it the fan-out's
threads are OS threads that contend with the committing one for the GIL.
"""

from __future__ import annotations

import os
import sys

if "--root" in sys.argv:
    # Another checkout's server, with its .venv (its editable install points
    # at it): this same script run again there, nothing else changed.
    at = sys.argv.index("--root")
    root = os.path.abspath(sys.argv[at + 1])
    rest = sys.argv[1:at] + sys.argv[at + 2:]
    os.execve(os.path.join(root, ".venv/bin/python"), [os.path.join(root, ".venv/bin/python"), __file__, *rest],
              {**os.environ, "PYTHONPATH": root})

if "--gevent" in sys.argv:
    # Before anything imports socket or threading, as gunicorn's gevent worker
    # does: the production server runs every socket and thread as a greenlet on
    # one OS thread. Without it the fan-out's threads are real ones and contend
    # with the committing one for the GIL, which the server never does.
    from gevent import monkey

    monkey.patch_all()

import argparse
import random
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import redis

ROOT = Path(__file__).resolve().parent.parent
# Appended, not first: a PYTHONPATH of another tree wins, so this script can
# time another build's server.
sys.path.append(str(ROOT))

from bench.loadkit.tables import SEATS, fill  # noqa: E402
from engines import registry  # noqa: E402
from server import live, runtime  # noqa: E402
from server.config import Limits  # noqa: E402
from server.service import Tables  # noqa: E402
from server.store import Store  # noqa: E402
from tablemate_verify.chain import make_chain  # noqa: E402
from tests.sealed_votes import VOTE_TYPES, VoteSeals  # noqa: E402

#: Links in each seat's chain with ``--chains``: one a draw, more than a run uses.
CHAIN = 400


class Socket:
    """One phone's socket: a real socket pair, so the hub writes finished
    frames to it as it does to a phone (``Connection.offer``, the heartbeat's
    ``os.write``); the bench reads the other end. ``last`` is the last
    ``state`` frame read (the next action is picked from it, whatever
    presence frames the hub's rounds sent since)."""

    def __init__(self) -> None:
        self.sock, self.peer = socket.socketpair()
        # Non-blocking underneath, as gevent's sockets are (without gevent too):
        # the hub then writes it itself.
        os.set_blocking(self.sock.fileno(), False)
        self.connected = True
        self.last = ""
        self.buf = b""

    def drain(self) -> None:
        """Reads what the hub wrote (untimed) and keeps the last state frame."""
        fd = self.peer.fileno()
        while True:
            try:
                data = os.read(fd, 1 << 20)
            except BlockingIOError:
                break
            if not data:
                break
            self.buf += data
        while len(self.buf) >= 2:
            n, head = self.buf[1] & 0x7F, 2
            if n == 126:
                n, head = int.from_bytes(self.buf[2:4], "big"), 4
            elif n == 127:
                n, head = int.from_bytes(self.buf[2:10], "big"), 10
            if len(self.buf) < head + n:
                break
            text = self.buf[head:head + n].decode()
            self.buf = self.buf[head + n:]
            if text.startswith('{"type":"state"'):
                self.last = text

    def send(self, data: str) -> None:  # the library's path: a hub that cannot write the socket itself
        raise AssertionError("the hub wrote through the library, not its own frames")

    def close(self, **_: Any) -> None:
        pass


def redis_cpu(r: redis.Redis) -> float:
    info = r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=60)
    ap.add_argument("--actions", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", action="store_true",
                    help="each seat seeds every open scope first, as phones did before issue 38 (a build from then)")
    ap.add_argument("--chains", action="store_true",
                    help="every seat anchors a hash chain, and a draw's timed action includes each waiting seat's link")
    ap.add_argument("--games", default="", help="comma-separated games to play (default: all three)")
    ap.add_argument("--prefer", default="", help="an action type played whenever it is legal (e.g. pyramid)")
    ap.add_argument("--settle", type=float, default=0.0,
                    help="ms of idle before each timed action (untimed): what the previous one left behind "
                         "(another thread's share of its push, a seed's) is then not charged to it")
    ap.add_argument("--redis-url")
    ap.add_argument("--root", help="time this checkout's server with its .venv (handled before parsing)")
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
    tables = Tables(store, registry.get,
                    limits=Limits(seat_actions=big, seat_entries=big, log_entries=big),
                    rng=random.Random(args.seed + 1))
    hub = live.Hub(tables, store)  # the service's fan-out, as create_app makes it
    tables.fan_out(hub.wrote)
    hub.ensure_listening()
    wanted = set(filter(None, args.games.split(",")))
    games = [g for g in registry.names() if g in SEATS and (not wanted or g in wanted)]
    plans = []
    #: (table, seat) → the seat's hash chain, and how many links it has given.
    chains: dict[tuple[str, str], list[str]] = {}
    used: dict[tuple[str, str], int] = {}
    for i in range(args.tables):
        game = games[i % len(games)]
        n = rng.randint(*SEATS[game])
        doc, host = tables.create({"game": game, "name": "Host"})
        tokens = [("p1", host)] + [(pid, tok) for pid, tok in
                                   (tables.join(doc["id"], {"name": f"P{k + 2}"}) for k in range(n - 1))]
        tables.act(doc["id"], host, {"action": {"type": "start"}, "request_id": "start"})
        if args.chains:
            for pid, tok in tokens:
                chain = make_chain(CHAIN, f"{rng.getrandbits(256):064x}")
                chains[(doc["id"], pid)] = chain
                tables.act(doc["id"], tok, {"action": {"type": "anchor", "anchor": chain[0], "length": CHAIN},
                                            "request_id": f"anchor-{pid}"})
        conns: list[live.Connection] = []
        for pid, tok in tokens:
            sock = Socket()
            sock.peer.setblocking(False)
            conn = live.Connection(sock, doc["id"], pid, tok)
            assert conn.outbox.fd is not None, "the hub must be able to write this socket itself"
            hub.add(conn)
            conns.append(conn)
            conn.send_state(tables.snapshot(tables.load(doc["id"]), pid))
            if args.chains and conn.member is not None:
                # Live, as a phone's socket is once it has said hello: a draw waits for its link.
                store.presence.touch(doc["id"], conn.member)
        plans.append((doc["id"], game, conns, dict(zip([p for p, _ in tokens], [t for _, t in tokens], strict=True))))
    # The collector as a worker has it (server/gunicorn_conf.py): its default
    # thresholds would charge full collections over every table to whichever
    # action met them, more often to a build that allocates more.
    runtime.tune()
    r = redis.Redis.from_url(url)
    cpu: list[float] = []
    by_type: dict[str, list[float]] = {}
    skipped = lost = linked = 0
    # King Up votes sealed and opened as the app does (a vote in the open is refused).
    seals = {tid: VoteSeals() for tid, *_ in plans}
    r0 = redis_cpu(r)
    for k in range(args.actions):
        tid, game, conns, seat_tokens = plans[rng.randrange(len(plans))]
        options = []
        seeds = []
        for conn in conns:
            conn.heard = time.monotonic()  # as a phone's pings keep it (the hub's refresh reads it)
            conn.ws.drain()
            snap = orjson.loads(conn.ws.last) if conn.ws.last else None
            if snap is None or conn.player is None:
                continue
            seeds += [] if not args.seeds else [(conn.player, {"type": "seed", "scope": s["scope"], "seed": f"{rng.getrandbits(256):064x}"})
                      for s in snap.get("fair", {}).get("open", []) if conn.player not in s["seeded"]]
            options += [(conn.player, a) for t in snap["legal"]
                        if (a := seals[tid].complete(snap, conn.player, t) if t["type"] in VOTE_TYPES
                            else fill(game, t, snap["view"], rng)) is not None]
        preferred = [o for o in options if o[1]["type"] == args.prefer]
        if seeds:
            # A phone seeds a scope as soon as its snapshot shows it, before anything else.
            options = seeds[:1]
        elif preferred:
            options = preferred
        if not options:
            skipped += 1
            continue
        player, action = rng.choice(options)
        if args.settle:
            time.sleep(args.settle / 1e3)
        t0 = time.process_time()
        result = tables.act(tid, seat_tokens[player], {"action": action, "request_id": f"b{k}"})
        held = next((e for e in result["events"] if e.get("type") == "draw_pending"), None)
        if held is not None:
            linked += 1
            # Each waiting seat's link, as its phone sends it on the draw frame;
            # the last one's result is the draw's.
            for pid in held["waiting"]:
                n = used[(tid, pid)] = used.get((tid, pid), 0) + 1
                result = tables.act(tid, seat_tokens[pid], {
                    "action": {"type": "link", "draw": held["draw"], "link": chains[(tid, pid)][n]},
                    "request_id": f"b{k}-{pid}"})
        # The push is done when every seat's socket has been handed the version
        # (on the committing greenlet itself, or on one it started).
        deadline = time.monotonic() + 10
        while any(c.sent_version < result["version"] for c in conns) and time.monotonic() < deadline:
            time.sleep(0.0005)
        if any(c.sent_version < result["version"] for c in conns):
            print(f"fan-out did not arrive: {tid} ({game}) at version {result['version']}", file=sys.stderr)
            lost += 1
            continue
        cpu.append(time.process_time() - t0)
        by_type.setdefault(action["type"], []).append(cpu[-1])
    r1 = redis_cpu(r)
    hub.stop.set()
    phones = sum(len(c) for _, _, c, _ in plans)
    print(f"load average {os.getloadavg()[0]:.1f}; {len(plans)} tables, {phones} seats, "
          f"{len(cpu)} actions ({skipped} picks with nothing to play, {lost} fan-outs lost, "
          f"{linked} draws made from the seats' links)")
    print(f"server CPU per action: median {statistics.median(cpu) * 1e3:.2f} ms, "
          f"mean {statistics.fmean(cpu) * 1e3:.2f} ms")
    print(f"Redis CPU per action: {(r1 - r0) / max(1, len(cpu)) * 1e3:.2f} ms")
    for atype, times in sorted(by_type.items(), key=lambda kv: -len(kv[1])):
        print(f"  {atype}: {len(times)} actions, median {statistics.median(times) * 1e3:.2f} ms, "
              f"mean {statistics.fmean(times) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
