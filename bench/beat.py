"""CPU of one socket's liveness frames under gevent, as the server writes them:

    .venv/bin/python bench/beat.py [--n 20000] [--rounds 5]
    PYTHONPATH=<tree> .venv/bin/python bench/beat.py     # another build's

On a socket pair (the far end drained every 64 frames), ``Connection.beat``
with the descriptor (the hub's heartbeat, ``Liveness.beat_all``) and without it
(the answer to a phone's ping, from the socket's own handler). Prints the
minimum over the rounds of µs of thread CPU per frame, the write included
(a Unix socket's write is cheaper than a TCP socket's on loopback).
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

# Appended, not first: a PYTHONPATH of another tree wins.
sys.path.append(str(Path(__file__).resolve().parent.parent))

from server.live.connection import Connection  # noqa: E402


class WS:
    """The parts of a ``simple_websocket.Server`` a ``Connection`` uses."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.connected = True


def per_frame(fn: Callable[[], None], peer: socket.socket, n: int, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        began = time.thread_time()
        for i in range(n):
            fn()
            if i % 64 == 63:
                try:
                    while peer.recv(1 << 16):
                        pass
                except BlockingIOError:
                    pass
        best = min(best, (time.thread_time() - began) / n * 1e6)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    ours, peer = socket.socketpair()
    peer.setblocking(False)
    conn = Connection(WS(ours), "t1", "p1", "token")
    fd = conn.outbox.fd
    assert fd is not None, "gevent's sockets are non-blocking underneath"
    beat = per_frame(lambda: conn.beat(fd, time.monotonic()), peer, args.n, args.rounds)
    pong = per_frame(conn.beat, peer, args.n, args.rounds)
    print(f"heartbeat {beat:.2f} µs, ping answer {pong:.2f} µs of CPU a frame")


if __name__ == "__main__":
    main()
