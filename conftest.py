"""Shared fixtures for tests/ and e2e/: a real redis-server, a real Redis Cluster
and live app servers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.cluster
from redis.crc import key_slot

ROOT = Path(__file__).resolve().parent
#: CI sets CI=true: there a missing browser or game must fail the run, so a
#: green run always means every test really ran.
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
# One key for every server a test starts (instances, workers, restarts): each
# must read the sheets another encrypted at rest (server/service/atrest.py).
os.environ.setdefault("TABLEMATE_SEAL_KEY", os.urandom(32).hex())
# Every server a test starts checks that no action changes a shared parsed
# document in place (server/store/writes.py, ``Parsed``).
os.environ.setdefault("TABLEMATE_CHECK_SHARED", "1")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test its own node id: pytest-xdist (the Makefile's ``-n``) schedules by
    node id, and tests that share one would run as one, the others silently never."""
    twice = sorted(nodeid for nodeid, n in Counter(i.nodeid for i in items).items() if n > 1)
    if twice:
        raise pytest.UsageError(f"tests share a node id (give each its own): {twice[:5]}")


def skip_or_fail(reason: str) -> None:
    """Skips the test on a developer's machine; fails it in CI."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: a missing prerequisite fails instead of skipping)")
    pytest.skip(reason)


def run_node(js: str, *, env: dict[str, str] | None = None, stdin: str | None = None,
             timeout: float = 60) -> Any:
    """The JSON an ES-module snippet writes to stdout, run in node from the repo
    root as the app's modules expect (``./web/...`` imports); no node: skipped
    (failed in CI). ``PATH`` is empty, so the snippet reaches no other program."""
    node = shutil.which("node")
    if not node:
        skip_or_fail("node not found (the web/ checks need it)")
    assert node is not None
    done = subprocess.run([node, "--input-type=module", "-e", js], cwd=ROOT, capture_output=True, text=True,
                          input=stdin, timeout=timeout, env={"PATH": "", **(env or {})})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check: Callable[[], object], timeout: float = 15.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"timed out waiting for {what}")


class RedisServer:
    """A throw-away redis-server on a free loopback port."""

    def __init__(self, persist_dir: str | None = None, extra_args: tuple[str, ...] = ()) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed; run the README's test command (make test)")
        self.port = free_port()
        self.dir = persist_dir or tempfile.mkdtemp(prefix="tm-redis-")
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", self.dir, "--protected-mode", "no", *extra_args]
        self.args = args
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        wait_for(lambda: redis.Redis(port=self.port).ping(), what="redis-server")

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, decode_responses=True)

    def kill(self) -> None:
        """SIGKILL: gone without a word, as a crashed host (what persistence keeps survives)."""
        self.proc.kill()
        self.proc.wait(10)

    def start(self) -> None:
        """Starts it again on the same port and folder, after ``kill`` or ``stop``."""
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: redis.Redis(port=self.port).ping(), what="redis-server again")

    def pause(self) -> None:
        """SIGSTOP: its sockets stay open and nothing answers (a frozen host)."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def close(self) -> None:
        """Stops the server and removes its folder (a restart needs ``stop``)."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


#: How ``REDIS_URL`` names a Redis Cluster (docs/deploy.md, "Redis Cluster"): any one master as
#: ``redis+cluster://host:port`` (``rediss+cluster://`` over TLS). redis-py's
#: ``RedisCluster.from_url`` takes only ``redis://``/``rediss://`` of one seed node and
#: discovers the rest; a plain client given the ``+cluster`` form refuses the scheme
#: instead of talking to one node and failing later with MOVED.
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def cluster_seed_url(url: str) -> str:
    """The ``redis://``/``rediss://`` seed URL redis-py's ``RedisCluster`` takes."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in CLUSTER_SCHEMES:
        raise ValueError(f"not a cluster URL (redis+cluster:// or rediss+cluster://): {url!r}")
    return f"{CLUSTER_SCHEMES[scheme]}://{rest}"


def redis_major(binary: str) -> int:
    """The major version of a redis-server binary (``Redis server v=7.0.15 ...``)."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    return int(out.split("v=", 1)[1].split(".", 1)[0])


class RedisCluster:
    """A throw-away Redis Cluster of ``masters`` masters on loopback, each with
    ``replicas`` replicas (none by default), persistence off unless ``aof``,
    Redis's ``cluster-require-full-coverage yes`` unless ``full_coverage`` is False.

    Redis 7 is needed (sharded pub/sub, ``cluster-port``). Each node gets two free
    ports (clients and the cluster bus: the default bus port, port + 10000, may be
    taken or out of range) and its own folder, where ``nodes.conf`` keeps its
    place in the cluster across a restart (``RedisServer.kill`` / ``start``).
    About a second to start: ``redis-cli --cluster create`` waits a second for
    the nodes to meet."""

    def __init__(self, masters: int = 3, node_timeout_ms: int = 5000, replicas: int = 0,
                 aof: bool = False, full_coverage: bool = True) -> None:
        server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
        if server is None or cli is None:
            pytest.fail("redis-server and redis-cli are needed; run the README's test command (make test)")
        if redis_major(server) < 7:
            skip_or_fail("Redis Cluster tests need redis-server 7 or newer (sharded pub/sub)")
        self.nodes: list[RedisServer] = []
        try:
            for _ in range(masters * (1 + replicas)):
                # A node timeout well above a stall of a loaded CI machine: with no
                # replicas, a master wrongly marked failed takes the cluster down.
                self.nodes.append(RedisServer(extra_args=(
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-port", str(free_port()),
                    "--cluster-node-timeout", str(node_timeout_ms),
                    # Every write on disk before its reply: with the default (everysec) a
                    # busy machine's slow fsync postpones the AOF write past the reply, and
                    # a SIGKILL lost a table the app had been told was stored (a CI flake of
                    # tests/faults/test_cluster.py's every-master-down test).
                    *(("--appendonly", "yes", "--appendfsync", "always") if aof else ()),
                    *(() if full_coverage else ("--cluster-require-full-coverage", "no")))))
            addresses = [f"127.0.0.1:{n.port}" for n in self.nodes]
            made = subprocess.run(
                [cli, "--cluster", "create", *addresses, "--cluster-replicas", str(replicas), "--cluster-yes"],
                capture_output=True, text=True, timeout=60)
            if made.returncode != 0:
                raise RuntimeError(f"redis-cli --cluster create failed:\n{made.stdout}{made.stderr}")
            for node in self.nodes:
                plain = redis.Redis(port=node.port, decode_responses=True)
                wait_for(lambda r=plain: r.cluster("info")["cluster_state"] == "ok",
                         timeout=30, what=f"cluster_state:ok on {node.port}")
                # A replica that has not synced once never takes over (its data
                # counts as too old): the cluster is ready when every one has.
                wait_for(lambda r=plain: r.info("replication").get("master_link_status", "up") == "up",
                         timeout=30, what=f"the replica {node.port} in sync")
        except BaseException:
            self.close()
            raise
        self.ports = [n.port for n in self.nodes]
        self.url = f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def client(self, **kwargs: object) -> redis.cluster.RedisCluster:
        """redis-py's cluster client, as the server would build it from ``url``."""
        return redis.cluster.RedisCluster.from_url(
            cluster_seed_url(self.url), **{"decode_responses": True, **kwargs})

    def node_client(self, port: int) -> redis.Redis:
        """A plain client of one node (no redirects followed)."""
        return redis.Redis(port=port, decode_responses=True)

    def master_of(self, key: str) -> RedisServer:
        """The node that serves ``key``'s slot now (asked of a live node)."""
        slot = key_slot(key.encode())
        for node in self.nodes:
            try:
                shards = self.node_client(node.port).execute_command("CLUSTER", "SLOTS")
            except redis.RedisError:
                continue
            for first, last, master, *_ in shards:
                if first <= slot <= last:
                    return next(n for n in self.nodes if n.port == int(master[1]))
        raise LookupError(f"no live node serves slot {slot}")

    def move_slot(self, key: str, to: RedisServer) -> None:
        """Moves ``key``'s slot, keys and all, to the master ``to`` (as a
        resharding does: IMPORTING, MIGRATING, MIGRATE, then the new owner
        told to every master); the old owner drops its sharded channels."""
        self.begin_move(key, to)()

    def begin_move(self, key: str, to: RedisServer, keys: tuple[str, ...] = ()) -> Callable[[], None]:
        """The first half of ``move_slot``: ``key``'s slot IMPORTING on ``to`` and
        MIGRATING on its master, and only ``keys`` moved yet (a resharding moves a
        slot's keys a batch at a time). Back, what finishes the move."""
        slot = key_slot(key.encode())
        src = self.master_of(key)
        a, b = self.node_client(src.port), self.node_client(to.port)
        a_id, b_id = a.execute_command("CLUSTER", "MYID"), b.execute_command("CLUSTER", "MYID")
        b.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", a_id)
        a.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", b_id)
        if keys:
            a.execute_command("MIGRATE", "127.0.0.1", to.port, "", 0, 5000, "KEYS", *keys)

        def finish() -> None:
            while left := a.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
                a.execute_command("MIGRATE", "127.0.0.1", to.port, "", 0, 5000, "KEYS", *left)
            for node in (b, a, *(self.node_client(n.port) for n in self.nodes if n not in (src, to))):
                if node.execute_command("ROLE")[0] == "master":
                    node.execute_command("CLUSTER", "SETSLOT", slot, "NODE", b_id)
            self.wait_ok()
        return finish

    def wait_failover(self, victim: RedisServer, timeout: float = 60) -> None:
        """Until the cluster is ok again with none of its slots on ``victim``
        (down): its replicas took them over. Restarting it sooner brings it
        back as the master of its slots, and without persistence empty: its
        replica then copies the emptiness."""
        def moved() -> bool:
            for node in self.nodes:
                if node is victim or node.proc.poll() is not None:
                    continue
                for _, _, master, *_ in self.node_client(node.port).execute_command("CLUSTER", "SLOTS"):
                    if int(master[1]) == victim.port:
                        return False
            return True
        wait_for(moved, timeout=timeout, what=f"{victim.port}'s slots failed over")
        self.wait_ok(timeout)

    def wait_ok(self, timeout: float = 30) -> None:
        """Until every live node says ``cluster_state:ok`` and agrees on who serves every slot."""
        def ok() -> bool:
            views = []
            for node in self.nodes:
                if node.proc.poll() is not None:
                    continue
                c = self.node_client(node.port)
                if c.cluster("info")["cluster_state"] != "ok":
                    return False
                views.append(sorted((a, b, m[1]) for a, b, m, *_ in c.execute_command("CLUSTER", "SLOTS")))
            return bool(views) and all(v == views[0] for v in views)
        wait_for(ok, timeout=timeout, what="the cluster ok again")

    def flush(self) -> None:
        for port in self.ports:
            self.node_client(port).flushall()

    def close(self) -> None:
        for node in self.nodes:
            node.close()


class AppServer:
    """The real production serving model (gunicorn + gevent) in a subprocess."""

    def __init__(self, redis_url: str | None, env: dict[str, str] | None = None,
                 port: int | None = None) -> None:
        self.port = port or free_port()
        # Served over TLS (TABLEMATE_TLS_CERT): the certificate is its own CA here.
        cert = (env or {}).get("TABLEMATE_TLS_CERT")
        self.url = f"{'https' if cert else 'http'}://127.0.0.1:{self.port}"
        self.ssl = ssl.create_default_context(cafile=cert) if cert else None
        full_env = {
            **os.environ,
            "BIND": f"127.0.0.1:{self.port}",
            "TABLEMATE_EXTRA_ENGINES": "tests.toy_engine:TOY",
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        }
        if redis_url:
            full_env["REDIS_URL"] = redis_url
        self.log = tempfile.NamedTemporaryFile(prefix="tm-app-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "server/gunicorn_conf.py"),
             "server:create_app()"],
            cwd=ROOT, env=full_env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        wait_for(self.healthy, timeout=30, what=f"app server on {self.port}")

    def healthy(self) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"app server exited: {Path(self.log.name).read_text()[-2000:]}")
        with urllib.request.urlopen(self.url + "/healthz", timeout=2, context=self.ssl) as r:
            return r.status == 200

    def stop(self) -> None:
        if self.proc.poll() is None:
            # SIGINT is gunicorn's quick shutdown: no waiting for open sockets.
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def logs(self) -> str:
        return Path(self.log.name).read_text()

    def close(self) -> None:
        """Stops the server and removes its log."""
        self.stop()
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)


@pytest.fixture(scope="session")
def web_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh build of web/'s bundles (scripts/build-web.sh, under a second),
    made from web/ as it is now: never a developer's older build/web."""
    if not shutil.which("npm"):
        skip_or_fail("npm not found (scripts/build-web.sh needs it; bootstrap.sh installs it)")
    out = tmp_path_factory.mktemp("web-build") / "web"
    subprocess.run(["bash", str(ROOT / "scripts" / "build-web.sh"), str(out)], check=True,
                   stdout=subprocess.DEVNULL, timeout=300)
    return out


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    yield server
    server.close()


@pytest.fixture
def single_redis_url(redis_server: RedisServer) -> str:
    """A single Redis, flushed: what ``redis_url`` is, except where a
    directory's tests run on both kinds of Redis (``either_redis_url``)."""
    redis_server.client().flushall()
    return redis_server.url


@pytest.fixture
def redis_url(single_redis_url: str) -> str:
    return single_redis_url


#: The kinds of Redis ``either_redis_url`` runs a test on.
REDIS_KINDS = ["single", "cluster"]


def either_redis_url(request: pytest.FixtureRequest) -> str:
    """A ``redis_url`` fixture for a directory whose tests run on a single
    Redis and on a 3-master cluster (``pytest.fixture(params=REDIS_KINDS)``
    of this, in its conftest.py)."""
    name = "single_redis_url" if request.param == "single" else "redis_cluster_url"
    return str(request.getfixturevalue(name))


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    cluster = RedisCluster()
    yield cluster
    cluster.close()


@pytest.fixture
def redis_cluster_url(redis_cluster: RedisCluster) -> str:
    """The cluster's ``redis+cluster://`` URL, every master flushed first."""
    redis_cluster.flush()
    return redis_cluster.url


@pytest.fixture
def app_server_factory(redis_url: str) -> Iterator:
    started: list[AppServer] = []

    def start(env: dict[str, str] | None = None, redis: str | None = redis_url) -> AppServer:
        s = AppServer(redis, env)
        started.append(s)
        return s

    yield start
    for s in started:
        s.close()
