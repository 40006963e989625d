"""CPU of reading one phone frame: the library's path against the whole-frame path.

    .venv/bin/python bench/wsread.py [--frames 20000] [--rounds 3]

Under gevent's monkey-patching, as the server runs: a real
``simple_websocket.Server`` (made as the server makes it, ``server/live/route.py``'s
``NoThread``) on one end of a socket pair, a client sending masked frames on
the other, one frame per read as a phone's come. Times ``route.receive`` alone
(the recv, the parse, the decode) per frame, for the web client's ping and for
a typical action, with the whole-frame path on, and off (the socket marked as
read by the library: wsproto and simple-websocket's event handling, as before).
Prints each round and the medians, in µs of CPU per frame.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import simple_websocket  # noqa: E402
from wsproto.frame_protocol import FrameProtocol  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.live import route  # noqa: E402

PING = '{"type":"ping"}'
ACTION = ('{"type":"action","request_id":"r-7f3a9c2e","version":41,'
          '"action":{"type":"leg_bet","camel":"blue"}}')
KEY = "dGhlIHNhbXBsZSBub25jZQ=="


def per_frame(text: str, frames: int, library: bool) -> float:
    """µs of CPU in ``route.receive`` per frame."""
    server_end, phone_end = socket.socketpair()
    environ = {"werkzeug.socket": server_end, "HTTP_HOST": "x", "HTTP_UPGRADE": "websocket",
               "HTTP_CONNECTION": "Upgrade", "HTTP_SEC_WEBSOCKET_KEY": KEY,
               "HTTP_SEC_WEBSOCKET_VERSION": "13"}
    ws = simple_websocket.Server(environ, max_message_size=64 * 1024, thread_class=route.NoThread)
    phone_end.recv(65536)  # the 101
    if library:
        setattr(ws, route.LIBRARY_READS, True)
    encoder = FrameProtocol(client=True, extensions=[])
    data = [encoder.send_data(text, fin=True) for _ in range(frames)]  # each its own mask
    spent = 0.0
    for frame in data:
        phone_end.sendall(frame)
        t = time.process_time()
        got = route.receive(ws, 1.0)
        spent += time.process_time() - t
        assert got == text
    server_end.close()
    phone_end.close()
    return spent / frames * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    figures: dict[str, list[float]] = {}
    for i in range(a.rounds):
        for name, text in (("ping", PING), ("action", ACTION)):
            for library in (True, False):
                key = f"{name} {'library' if library else 'whole-frame'}"
                figures.setdefault(key, []).append(per_frame(text, a.frames, library))
        print(f"round {i + 1}: " + ", ".join(f"{k} {v[-1]:.1f} µs" for k, v in figures.items()), flush=True)
    med = {k: statistics.median(v) for k, v in figures.items()}
    for name in ("ping", "action"):
        lib, fast = med[f"{name} library"], med[f"{name} whole-frame"]
        print(f"reading a phone's {name} frame, CPU per frame: library {lib:.1f} µs, "
              f"whole-frame path {fast:.1f} µs ({lib / fast:.1f}×)")
    print(f"load average at the end: {Path('/proc/loadavg').read_text().split()[0]}")


if __name__ == "__main__":
    main()
