"""Client CPU of the store's hot paths: redis-py against server/store/resp.py.

    .venv/bin/python bench/resp.py [--calls 4000] [--rounds 3] [--doc-kb 3]

Under gevent's monkey-patching, as the server runs, against its own local
redis-server. Per round and client, alternating:
- the commit script (``server/store/commit.py``'s, through ``Committer.run``) on a
  table document of ``--doc-kb`` KB: this process's CPU per call;
- the change channel: a second process publishes ``--calls`` messages of that
  size, paced like a busy server; this process's CPU per message received
  on a table's sharded channel (``PubSubFeed`` against ``LeanFeed``, the two
  feeds the store's listener reads a single Redis with).
Prints each round's figures and the medians. Only the client's CPU is counted
(``time.process_time``); Redis's is its own.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import redis  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.loadkit.servers import free_port, start_redis  # noqa: E402
from server.store.commit import Change, Committer  # noqa: E402
from server.store.feeds import LeanFeed, PubSubFeed  # noqa: E402
from server.store.keys import channel_key, doc_key, req_key, version_key  # noqa: E402
from server.store.paths import Own, Plain  # noqa: E402
from server.store.resp import Lean  # noqa: E402

CHANNEL = channel_key("abc")
PUBLISHER = """
import sys, time, redis
port, n, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
r = redis.Redis(port=port)
time.sleep(0.3)
for i in range(n):
    r.spublish({channel!r}, b'{{"t":"abc","v":%d,"d":{{"x":"' % i + b'x' * size + b'"}}}}')
    time.sleep(0.0004)
"""


def commits(committer: Committer, r: redis.Redis, calls: int, doc: bytes) -> float:
    """µs of this process's CPU per commit script call."""
    r.set(doc_key("bench"), doc.decode())
    r.set(version_key("bench"), 1)
    r.delete(req_key("bench"))
    # As an action's: one request id assumed unseen and recorded. The version
    # written is the one it was built on, so every call commits.
    changes = [Change("bench", 1, doc, 1, b'{"a":1}', [f"r{i}"], [(f"r{i}", b'{"v":1}')], [])
               for i in range(calls + 1)]
    status, _ = committer.run(changes[-1], 600)  # loads the script
    assert status == 3, status
    t = time.process_time()
    for change in changes[:-1]:
        committer.run(change, 600)
    spent = time.process_time() - t
    r.delete(req_key("bench"))
    return spent / calls * 1e6


def messages(feed: Any, port: int, calls: int, size: int) -> float:
    """µs of this process's CPU per change message received."""
    feed.add([CHANNEL])
    while (feed.get() or ("",))[0] != "confirmed":
        pass
    pub = subprocess.Popen([sys.executable, "-c", PUBLISHER.format(channel=CHANNEL),
                            str(port), str(calls), str(size)])
    got, t = 0, 0.0
    while got < calls:
        if feed.get() is not None:
            if got == 0:
                t = time.process_time()  # from the first: not the publisher's start
            got += 1
    spent = time.process_time() - t
    pub.wait()
    feed.close()
    return spent / (calls - 1) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=4000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--doc-kb", type=float, default=3.0)
    a = ap.parse_args()
    port = free_port()
    proc = start_redis(port)
    try:
        r = redis.Redis(port=port, decode_responses=True)
        lean = Lean.for_client(r)
        assert lean is not None
        size = int(a.doc_kb * 1024)
        doc = b'{"version":1,"x":"' + b"x" * size + b'"}'
        figures: dict[str, list[float]] = {k: [] for k in
                                           ("commit redis-py", "commit lean", "message redis-py", "message lean")}
        for i in range(a.rounds):
            figures["commit redis-py"].append(commits(Committer(Plain(r)), r, a.calls, doc))
            figures["commit lean"].append(commits(Committer(Own(lean)), r, a.calls, doc))
            figures["message redis-py"].append(messages(PubSubFeed(r), port, a.calls, size))
            figures["message lean"].append(messages(LeanFeed(lean), port, a.calls, size))
            print(f"round {i + 1}: " + ", ".join(f"{k} {v[-1]:.1f} µs" for k, v in figures.items()), flush=True)
        med = {k: statistics.median(v) for k, v in figures.items()}
        print(f"commit script ({a.doc_kb:g} KB document), client CPU per call: "
              f"redis-py {med['commit redis-py']:.1f} µs, lean {med['commit lean']:.1f} µs "
              f"({med['commit redis-py'] / med['commit lean']:.2f}×)")
        print(f"change message ({a.doc_kb:g} KB document), client CPU per message: "
              f"redis-py {med['message redis-py']:.1f} µs, lean {med['message lean']:.1f} µs "
              f"({med['message redis-py'] / med['message lean']:.2f}×)")
        print(f"load average at the end: {Path('/proc/loadavg').read_text().split()[0]}")
    finally:
        proc.terminate()


if __name__ == "__main__":
    main()
