"""The fault soak: phones on two instances over a Redis Cluster with a replica
per master, actions going on, while it kills, pauses and restarts masters and
moves slots in a loop. Prints acknowledged actions lost (must be 0), phones
diverged (must be 0) and the longest time for every phone to show what the
store held when it answered again.

    .venv/bin/python -m tests.faults.soak --duration 300 --tables 12

``tests/faults/test_soak.py`` runs a short one (one round of the faults).
Each table has a host on instance one and a guest on instance two; each
phone's socket is read by a thread of its own (and reconnected when closed),
and each table's driver adds a note every ``--pause`` seconds through one of
them over HTTP, sending a refused one again with the same request id until
the store takes it. An acknowledged action is one answered 200.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import websocket

from conftest import AppServer, RedisCluster, RedisServer
from server.store.keys import doc_key, log_key, version_key
from tests.faults.conftest import APP_ENV
from tests.server.livehelpers import http, open_live_table, socket_protocols

#: Seconds every phone may take to show the store's version once it answers again.
CONVERGE = 30.0


@dataclass
class Phone:
    base: str
    table: str
    pid: str
    token: str
    version: int = 0
    reconnects: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, stop: threading.Event) -> None:
        """Reads the socket until ``stop``; a closed one is opened again."""
        url = self.base.replace("http", "ws", 1) + f"/api/tables/{self.table}/ws"
        first = True
        while not stop.is_set():
            try:
                ws = websocket.create_connection(url, timeout=5, subprotocols=socket_protocols(self.token))
            except Exception:
                stop.wait(0.5)
                continue
            if not first:
                self.reconnects += 1
            first = False
            try:
                ws.settimeout(1)
                while not stop.is_set():
                    try:
                        raw = ws.recv()
                    except websocket.WebSocketTimeoutException:
                        continue
                    if not raw:
                        break
                    msg = json.loads(raw)
                    if msg.get("type") == "state":
                        with self.lock:
                            assert msg["version"] >= self.version, "a phone went back"
                            self.version = msg["version"]
            except Exception:
                pass  # closed under the read: open it again
            finally:
                ws.close()


@dataclass
class Table:
    id: str
    phones: list[Phone]
    acked: dict[str, int] = field(default_factory=dict)
    #: When each was acknowledged (``time.monotonic``).
    when: dict[str, float] = field(default_factory=dict)
    #: Answers other than 200, by status and code (each sent again).
    refused: dict[str, int] = field(default_factory=dict)


def drive(table: Table, stop: threading.Event, pause: float, rng: random.Random) -> None:
    for n in itertools.count():
        if stop.is_set():
            return
        phone = table.phones[n % 2]
        rid = f"{table.id}-{n}"
        while not stop.is_set():
            try:
                status, body = http(phone.base, "POST", f"/api/tables/{table.id}/actions",
                                    {"action": {"type": "note", "text": rid}, "request_id": rid}, phone.token)
            except Exception as exc:  # the instance did not answer in time: the same request again
                status, body = 0, {"error": {"code": type(exc).__name__}}
            if status == 200:
                table.acked[rid] = int(body["version"])
                table.when[rid] = time.monotonic()
                break
            why = f"{status} {(body or {}).get('error', {}).get('code')}"
            table.refused[why] = table.refused.get(why, 0) + 1
            stop.wait(0.3)
        stop.wait(rng.uniform(0, 2 * pause))


def current_master(cluster: RedisCluster, rng: random.Random) -> RedisServer:
    """A master of now (a failover changes which nodes are)."""
    for node in rng.sample(cluster.nodes, len(cluster.nodes)):
        if node.proc.poll() is None and cluster.node_client(node.port).execute_command("ROLE")[0] == "master":
            return node
    raise LookupError("no master")


def converge(cluster: RedisCluster, tables: list[Table], timeout: float = CONVERGE) -> float:
    """Seconds until every phone shows at least the version stored now."""
    client = cluster.client()
    try:
        stored = {t.id: client.get(version_key(t.id)) for t in tables}
    finally:
        client.close()
    gone = [tid for tid, v in stored.items() if v is None]
    assert not gone, f"tables gone from the store: {gone} (slots on {[cluster.master_of(version_key(t)).port for t in gone]})"
    want = {tid: int(v) for tid, v in stored.items()}
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if all(p.version >= want[t.id] for t in tables for p in t.phones):
            return time.monotonic() - start
        time.sleep(0.1)
    return float("inf")


def faults(cluster: RedisCluster, tables: list[Table], rng: random.Random, rounds: int | None,
           until: float, settle: float, log: list[str], times: list[float],
           windows: list[tuple[str, float, float]]) -> None:
    """Kill and restart (the replica takes over), pause, move a slot: in turn."""
    kinds = ["kill", "pause", "move"]
    for n in itertools.count():
        if (rounds is not None and n >= rounds * len(kinds)) or time.monotonic() > until:
            return
        kind = kinds[n % len(kinds)]
        began = time.monotonic()
        victim = current_master(cluster, rng)
        if kind == "kill":
            victim.kill()
            time.sleep(settle)
            cluster.wait_failover(victim)  # its replica took over
            victim.start()  # back as a replica
        elif kind == "pause":
            victim.pause()
            time.sleep(settle)
            victim.resume()
        else:
            table = rng.choice(tables)
            victim = cluster.master_of(doc_key(table.id))
            others = [m for m in (current_master(cluster, rng) for _ in range(6)) if m is not victim]
            if others:
                cluster.move_slot(doc_key(table.id), others[0])
        cluster.wait_ok(60)
        took = converge(cluster, tables)
        times.append(took)
        log.append(f"{kind} {victim.port}: every phone converged in {took:.1f}s")
        windows.append((kind, began, time.monotonic()))
        time.sleep(settle)


def lost(cluster: RedisCluster, tables: list[Table], windows: list[tuple[str, float, float]]) -> dict[str, int]:
    """Acknowledged actions missing from their table's log, or in it twice,
    by the fault they were acknowledged during ("none": between faults)."""
    client = cluster.client()
    found: dict[str, int] = {}
    try:
        for t in tables:
            logged = [json.loads(e).get("rid") for e in client.lrange(log_key(t.id), 0, -1)]
            for rid in t.acked:
                if logged.count(rid) != 1:
                    at = t.when[rid]
                    kind = next((k for k, a, b in windows if a <= at <= b), "none")
                    found[kind] = found.get(kind, 0) + 1
    finally:
        client.close()
    return found


def soak(duration: float, n_tables: int, rounds: int | None = None, pause: float = 0.5,
         settle: float = 4.0, seed: int = 1, wait: int = 1) -> dict[str, Any]:
    rng = random.Random(seed)
    cluster = RedisCluster(replicas=1, node_timeout_ms=2000)
    apps: list[AppServer] = []
    stop = threading.Event()
    threads: list[threading.Thread] = []  # the readers, once started
    try:
        # Each change acknowledged once its replica has it: a master paused past
        # the node timeout answered what was queued before it learnt it was
        # replaced, and lost those acknowledged changes (3 in 2 pauses without).
        apps = [AppServer(cluster.url, {**APP_ENV, "TABLEMATE_REDIS_WAIT": str(wait)}) for _ in range(2)]
        tables = []
        for _ in range(n_tables):
            host, guest = open_live_table(apps[0].url, joiners=1)
            status, body = host.act_http("start")
            assert status == 200, body
            tables.append(Table(host.table, [Phone(apps[0].url, host.table, "p1", str(host.token)),
                                             Phone(apps[1].url, host.table, str(guest.id), str(guest.token))]))
        readers = [threading.Thread(target=p.run, args=(stop,), daemon=True) for t in tables for p in t.phones]
        driving = threading.Event()
        drivers = [threading.Thread(target=drive, args=(t, driving, pause, random.Random(rng.random())), daemon=True)
                   for t in tables]
        threads += readers
        for th in readers + drivers:
            th.start()
        log: list[str] = []
        times: list[float] = []
        began = time.monotonic()
        windows: list[tuple[str, float, float]] = []
        faults(cluster, tables, rng, rounds, began + duration, settle, log, times, windows)
        seconds = time.monotonic() - began
        driving.set()
        for th in drivers:
            th.join(15)
        final = converge(cluster, tables)
        client = cluster.client()
        try:
            diverged = sum(p.version != int(client.get(version_key(t.id))) for t in tables for p in t.phones)
        finally:
            client.close()
        missing = lost(cluster, tables, windows)
        refused: dict[str, int] = {}
        for t in tables:
            for why, n in t.refused.items():
                refused[why] = refused.get(why, 0) + n
        return {
            "faults": log,
            "acknowledged": sum(len(t.acked) for t in tables),
            "refused, then sent again": refused,
            "acknowledged lost": sum(missing.values()),
            "lost during": missing,
            "phones diverged": diverged,
            "longest converge s": round(max(times + [final]), 1),
            #: Faults after which some phone did not show the stored version within CONVERGE.
            "not converged": sum(t == float("inf") for t in times),
            "reconnects": sum(p.reconnects for t in tables for p in t.phones),
            "seconds": round(seconds, 1),
            "healthz": [http(a.url, "GET", "/healthz")[0] for a in apps],
        }
    finally:
        stop.set()
        for th in threads:
            th.join(5)
        for a in apps:
            a.close()
        cluster.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=300, help="seconds of faults")
    ap.add_argument("--tables", type=int, default=12)
    ap.add_argument("--pause", type=float, default=0.5, help="mean seconds between a table's actions")
    ap.add_argument("--settle", type=float, default=4.0, help="seconds a fault lasts, and between faults")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--wait", type=int, default=1, help="TABLEMATE_REDIS_WAIT of the instances (0: off)")
    a = ap.parse_args()
    print(json.dumps(soak(a.duration, a.tables, pause=a.pause, settle=a.settle, seed=a.seed, wait=a.wait),
                     indent=2))


if __name__ == "__main__":
    main()
