"""server/runtime.py: ``start`` runs its work beside the caller, first until it
waits, under gevent (a greenlet) and without it (a thread)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from server.runtime import offload, start

ROOT = Path(__file__).resolve().parents[2]

GEVENT_ORDER = """
from gevent import monkey
monkey.patch_all()
import threading, time
from server.runtime import start
order = []
def work(tag):
    order.append(tag + " runs")
    time.sleep(0.01)  # waits: the caller goes on meanwhile
    order.append(tag + " ends")
def boom():
    raise RuntimeError("a failed push is printed, not raised in the caller")
start(work, "push")
order.append("caller goes on")
start(boom)
order.append("caller survives")
time.sleep(0.05)
assert threading.current_thread() is threading.main_thread()
print(order)
"""


def test_start_under_gevent_runs_the_work_first_until_it_waits() -> None:
    out = subprocess.run([sys.executable, "-c", GEVENT_ORDER], capture_output=True, text=True,
                         timeout=60, check=True, cwd=ROOT)
    assert out.stdout.strip() == "['push runs', 'caller goes on', 'caller survives', 'push ends']", out
    assert "RuntimeError: a failed push is printed" in out.stderr


def test_start_without_gevent_uses_a_thread() -> None:
    done = threading.Event()
    seen: list[str] = []

    def work(tag: str) -> None:
        seen.append(f"{tag} on {threading.current_thread().name}")
        done.set()

    start(work, "push")
    assert done.wait(5)
    assert seen[0].startswith("push on ") and threading.current_thread().name not in seen[0]


def test_offload_without_gevent_is_a_plain_call() -> None:
    assert offload(lambda: threading.current_thread()) is threading.current_thread()
