"""The processes a load run measures: its own redis-server, the server's instances
in their production serving model (gunicorn + gevent, server/gunicorn_conf.py) from
this checkout or another (``--root``: an A/B of a server change under the same
generator), and the limits they and the generator need for thousands of sockets."""

from __future__ import annotations

import os
import resource
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil
import redis

ROOT = Path(__file__).resolve().parents[2]

#: Shows the server's own figures on /healthz (its collector's longest pause).
STATS_TOKEN = secrets.token_urlsafe(16)
#: One key for every instance: each must read the sheets another encrypted at
#: rest (server/service/atrest.py, docs/deploy.md).
SEAL_KEY = os.environ.get("TABLEMATE_SEAL_KEY") or secrets.token_hex(32)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_http(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(url)


def start_redis(port: int) -> subprocess.Popen[bytes]:
    binary = shutil.which("redis-server")
    if not binary:
        sys.exit("redis-server not found (make test installs it)")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", tempfile.mkdtemp()],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if redis.Redis(port=port).ping():
                return proc
        except redis.RedisError:
            time.sleep(0.05)
    raise TimeoutError("redis")


def start_instance(redis_url: str, port: int, root: Path = ROOT,
                   extra: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, **(extra or {}), "REDIS_URL": redis_url, "BIND": f"127.0.0.1:{port}", "PYTHONPATH": str(root),
           "TABLEMATE_RATE_CREATE": "1000000000", "TABLEMATE_RATE_JOIN": "1000000000",
           "TABLEMATE_RATE_CODE": "1000000000", "LOG_LEVEL": "warning",
           "TABLEMATE_STATS_TOKEN": STATS_TOKEN, "TABLEMATE_SEAL_KEY": SEAL_KEY,
           # A few phones at a high --rate play far faster than people: measure
           # the server, not its flood limits (which real play stays far below).
           "TABLEMATE_RATE_ACTIONS_SEAT": "1000000000", "TABLEMATE_MAX_SEAT_LOG": "1000000000",
           "TABLEMATE_MAX_LOG": "1000000000",
           # Every phone of the generator comes from one address: lift the
           # per-address socket cap (server/live/admission.py), which a real
           # crowd of phones never shares.
           "TABLEMATE_WS_PER_ADDRESS": "1000000000"}
    log = open(Path(tempfile.gettempdir()) / f"tablemate-bench-{port}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(root / "server/gunicorn_conf.py"),
                             "server:create_app()"], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    wait_http(f"http://127.0.0.1:{port}/healthz")
    return proc


def workers(master: subprocess.Popen[bytes]) -> list[psutil.Process]:
    children: list[psutil.Process] = psutil.Process(master.pid).children(recursive=True)
    return children


def raise_fd_limit() -> tuple[int, int]:
    """Soft file-descriptor limit up to the hard one; the servers started later inherit it.
    Every phone is a socket on each side, so 5,000 phones need well over 5,000 per process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)
