"""What holding idle phones costs a server whose sockets are compiled: the floor.

    .venv/bin/python bench/idle_floor.py [--phones 5000] [--seconds 20] [--beat 2] [--ping 8]

Not Tablemate's server: a stand-in with compiled WebSocket framing (picows on
asyncio) that does only Tablemate's liveness work, to tell
how much of the real server's idle CPU (``bench/load.py --rate 1``) any socket
layer would spend, and how much is Python's and gevent's:
- every socket is visited once a second, a fiftieth of them every 20 ms, and
  sent a ``pong`` frame when nothing went to it for ``--beat`` - 0.5 s (the
  real server's heartbeat, ``server/live/liveness.py``'s ``Liveness.beat_all``);
- a phone's ``ping`` (every ``--ping`` s, first at a random moment) is answered
  at once with a ``pong``.
No presence, no store, no tables. The phones are picows sockets in this process;
the server is a child process, and only its CPU (user + system, from /proc) is
reported, over ``--seconds`` once every phone is connected. ``--beat 10 --ping 10``
is about boardgame.io's liveness (a ping and its answer every 10 s);
``--beat 1000 --ping 1000`` leaves only holding and visiting the sockets.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import picows
from picows import WSFrame, WSListener, WSMsgType, WSTransport

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.loadkit.servers import free_port  # noqa: E402

PONG = b'{"type":"pong","version":1}'
PING = b'{"type":"ping"}'
SLICES = 50


class Socket(WSListener):
    """The server's end of one phone's socket."""

    def __init__(self, hub: Hub) -> None:
        super().__init__()
        self.hub = hub
        self.transport: WSTransport | None = None
        self.sent_at = time.monotonic()
        self.slice = 0

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport
        self.hub.add(self)

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.TEXT and frame.get_payload_as_bytes() == PING:
            transport.send(WSMsgType.TEXT, PONG)
            self.sent_at = time.monotonic()
        elif frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self.hub.slices[self.slice].discard(self)


class Hub:
    def __init__(self, beat: float) -> None:
        self.beat = beat
        self.slices: list[set[Socket]] = [set() for _ in range(SLICES)]
        self.added = 0

    def add(self, sock: Socket) -> None:
        sock.slice = self.added % SLICES
        self.slices[sock.slice].add(sock)
        self.added += 1

    async def sweep(self) -> None:
        tick = 0
        while True:
            await asyncio.sleep(1.0 / SLICES)
            tick += 1
            now = time.monotonic()
            for sock in list(self.slices[tick % SLICES]):
                if now - sock.sent_at >= self.beat - 0.5 and sock.transport is not None:
                    sock.transport.send(WSMsgType.TEXT, PONG)
                    sock.sent_at = now


async def serve(port: int, beat: float) -> None:
    hub = Hub(beat)
    await picows.ws_create_server(lambda request: Socket(hub), "127.0.0.1", port)
    await hub.sweep()


class Phone(WSListener):
    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        pass  # a phone reads the beats and pongs; nothing to do with them here


async def ping(transport: WSTransport, every: float) -> None:
    await asyncio.sleep(random.uniform(0, every))
    while not transport.is_disconnected:
        transport.send(WSMsgType.TEXT, PING)
        await asyncio.sleep(every)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def drive(a: argparse.Namespace) -> None:
    port = free_port()
    cmd = [sys.executable, __file__, "--serve", str(port), "--beat", str(a.beat)]
    server = subprocess.Popen(cmd)
    try:
        url = f"ws://127.0.0.1:{port}/"
        deadline = time.monotonic() + 10
        while True:
            try:
                await picows.ws_connect(Phone, url)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        links: list[tuple[WSTransport, Any]] = []
        while len(links) < a.phones:
            batch = min(200, a.phones - len(links))
            links += await asyncio.gather(*[picows.ws_connect(Phone, url) for _ in range(batch)])
        tasks = [asyncio.create_task(ping(transport, a.ping)) for transport, _ in links]
        await asyncio.sleep(3)  # every socket beaten once and a first pings out
        c0, t0 = cpu_seconds(server.pid), time.monotonic()
        await asyncio.sleep(a.seconds)
        c1, t1 = cpu_seconds(server.pid), time.monotonic()
        print(f"picows on asyncio, {a.phones} idle phones, a beat after {a.beat:g} s of silence, "
              f"a ping every {a.ping:g} s: server CPU {100 * (c1 - c0) / (t1 - t0):.1f} % of a core")
        print(f"load average at the end: {Path('/proc/loadavg').read_text().split()[0]}")
        for task in tasks:
            task.cancel()
    finally:
        server.terminate()
        server.wait(5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phones", type=int, default=5000)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--beat", type=float, default=2.0)
    ap.add_argument("--ping", type=float, default=8.0)
    ap.add_argument("--serve", type=int, help=argparse.SUPPRESS)  # the child: the server on this port
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(serve(a.serve, a.beat) if a.serve is not None else drive(a))


if __name__ == "__main__":
    main()
