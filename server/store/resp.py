"""The store's own Redis client on plain sockets, for its hot paths: every
action's EVALSHA, the presence refresh, and the links of the change channels'
subscriptions (``feeds.Subscription``).

Every action runs one script (``server/store/commit.py``) and every process reads
every change back from the channel; the presence refresh runs a script five
times a second. Through redis-py each of these paid for its layers: the
script wrapper, the retry wrapper, argument filtering, the fork check, a
Python RESP packer and parser, and for pub/sub a readiness poll per message.
Here a commit and a change message cost well under half of redis-py's
client CPU (the own RESP client's row of docs/performance.md, "Why each fast path exists";
``bench/resp.py``). hiredis
(Redis' own C library, the parser redis-py itself can use) packs and parses
here; what is left in Python is a pool of sockets and two loops.

redis-py still does everything else (its pool, its errors, every other
command), and does these too when the store is not a single Redis over TCP
or TLS (``rediss://``, what a hosted Redis gives: production's URL) but a
Unix socket, a cluster or the embedded store: ``Lean.for_client`` answers
None then.
Failures raise redis-py's own ``ConnectionError`` / ``TimeoutError`` /
``ResponseError``, so the callers' handling (``store_unavailable``, the
listener's reconnect) does not know which client ran the command.
"""

from __future__ import annotations

import hashlib
import socket
import ssl
from typing import Any

import hiredis
import redis

from server.runtime import semaphore

#: A connection that has been idle in the pool may have died with a Redis
#: restart; a command that fails on one is sent once more on a new one (the
#: commit script is a compare-and-set, so a repeat of one that did land is
#: refused as CHANGED and the pipeline sees its request id recorded).
ATTEMPTS = 2


def send_whole(sock: Any, data: bytes) -> None:
    """All of ``data`` on ``sock``: one ``send`` when the socket's buffer takes
    it whole, as it does for nearly every frame; ``sendall`` for what is left.
    gevent's ``sendall`` asks the kernel for the buffer size (a getsockopt)
    and slices a memoryview before every send, for every frame and every
    store command: the ``send_whole`` row of docs/performance.md, "Why each
    fast path exists"."""
    sent = sock.send(data)
    if sent < len(data):
        sock.sendall(memoryview(data)[sent:])


class Link:
    """One socket to Redis with its reply parser."""

    def __init__(self, lean: Lean) -> None:
        self.sock = socket.create_connection((lean.host, lean.port), timeout=lean.connect_timeout)
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if lean.tls is not None:
                self.sock = lean.tls.wrap_socket(
                    self.sock, server_hostname=lean.host if lean.tls.check_hostname else None)
            self.sock.settimeout(lean.socket_timeout)
            self.reader = hiredis.Reader(encoding="utf-8")
            if lean.password is not None:
                auth = (lean.username, lean.password) if lean.username else (lean.password,)
                self.call(("AUTH", *auth))
            if lean.db:
                self.call(("SELECT", lean.db))
        except BaseException:
            self.sock.close()
            raise

    def send(self, command: tuple[Any, ...]) -> None:
        send_whole(self.sock, hiredis.pack_command(command))

    def send_all(self, commands: list[tuple[Any, ...]]) -> None:
        if len(commands) == 1:
            self.send(commands[0])
        else:
            send_whole(self.sock, b"".join(hiredis.pack_command(c) for c in commands))

    def reply_or_error(self) -> Any:
        """The next reply; a Redis error reply as a ``ResponseError``, not raised."""
        try:
            return self.reply()
        except redis.ResponseError as exc:
            return exc

    def reply(self) -> Any:
        """The next reply; a Redis error reply raises ``ResponseError``."""
        while True:
            rep = self.reader.gets()
            if rep is not False:
                break
            data = self.sock.recv(65536)
            if not data:
                raise redis.ConnectionError("Connection closed by server.")
            self.reader.feed(data)
        if isinstance(rep, hiredis.ReplyError):
            raise redis.ResponseError(str(rep))
        return rep

    def call(self, command: tuple[Any, ...]) -> Any:
        self.send(command)
        return self.reply()

    def close(self) -> None:
        try:
            # shutdown first: a thread blocked in recv on this socket wakes
            # (close alone leaves it blocked): the listener's watchdog relies on it.
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # not connected any more: nothing to wake
            pass
        try:
            self.sock.close()
        except OSError:  # already gone; nothing to release
            pass


#: redis-py's ``ssl_cert_reqs`` names, as ``ssl`` verify modes.
_CERT_REQS = {"none": ssl.CERT_NONE, "optional": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}


def _tls_context(kw: dict[str, Any]) -> ssl.SSLContext:
    """The TLS settings of a ``rediss://`` URL as redis-py reads them (its
    defaults: the certificate and the host name verified)."""
    reqs = kw.get("ssl_cert_reqs", "required")
    mode = _CERT_REQS[reqs] if isinstance(reqs, str) else int(reqs)
    ctx = ssl.create_default_context(cafile=kw.get("ssl_ca_certs"), capath=kw.get("ssl_ca_path"),
                                     cadata=kw.get("ssl_ca_data"))
    ctx.check_hostname = bool(kw.get("ssl_check_hostname", True)) and mode != ssl.CERT_NONE
    ctx.verify_mode = ssl.VerifyMode(mode)
    if kw.get("ssl_certfile"):
        ctx.load_cert_chain(kw["ssl_certfile"], kw.get("ssl_keyfile"), kw.get("ssl_password"))
    return ctx


def redis_error(exc: OSError) -> redis.RedisError:
    if isinstance(exc, TimeoutError):
        return redis.TimeoutError("Timeout reading from Redis.")
    return redis.ConnectionError(f"Redis connection failed: {exc}")


class Lean:
    """A bounded pool of ``Link`` s for scripts, and subscriptions."""

    def __init__(self, host: str, port: int, *, username: str | None = None,
                 password: str | None = None, db: int = 0, max_connections: int = 64,
                 pool_timeout: float = 30.0, socket_timeout: float = 5.0,
                 connect_timeout: float = 3.0, tls: ssl.SSLContext | None = None) -> None:
        self.host, self.port = host, port
        #: TLS (``rediss://``): the context every link is wrapped in.
        self.tls = tls
        self.username, self.password, self.db = username, password, db
        self.pool_timeout = pool_timeout
        self.socket_timeout, self.connect_timeout = socket_timeout, connect_timeout
        self.idle: list[Link] = []
        # Made when the store is (after gevent's monkey-patching in the
        # server): a greenlet waits for a free link, as with redis-py's
        # BlockingConnectionPool, instead of opening without bound in a burst.
        self.slots = semaphore(max_connections)
        self.shas: dict[str, str] = {}

    @classmethod
    def for_client(cls, client: Any) -> Lean | None:
        """A ``Lean`` to the Redis that ``client`` talks to, when it is a plain
        TCP one (its pool's settings); None otherwise."""
        pool = getattr(client, "connection_pool", None)
        kind = getattr(pool, "connection_class", None)
        if pool is None or kind not in (redis.Connection, redis.SSLConnection):
            return None
        kw = pool.connection_kwargs
        timeout = kw.get("socket_timeout") or 5.0
        tls = _tls_context(kw) if kind is redis.SSLConnection else None
        return cls(kw.get("host", "localhost"), int(kw.get("port", 6379)),
                   username=kw.get("username"), password=kw.get("password"), db=int(kw.get("db") or 0),
                   max_connections=int(getattr(pool, "max_connections", 64) or 64),
                   pool_timeout=float(getattr(pool, "timeout", 30.0) or 30.0),
                   socket_timeout=float(timeout),
                   connect_timeout=float(kw.get("socket_connect_timeout") or timeout), tls=tls)

    def evalsha(self, source: str, keys: list[Any], args: list[Any]) -> Any:
        """The script's reply: EVALSHA, and EVAL when Redis does not know it yet
        (a restart, a failover, a flush). The ``Own`` path's ``script`` itself
        (``paths.py``)."""
        sha = self.shas.get(source)
        if sha is None:
            sha = self.shas[source] = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()
        try:
            return self.call(("EVALSHA", sha, len(keys), *keys, *args))
        except redis.ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
            return self.call(("EVAL", source, len(keys), *keys, *args))

    def evalsha_wait(self, source: str, keys: list[Any], args: list[Any], replicas: int,
                     ms: int) -> tuple[Any, int]:
        """The script's reply, and how many replicas had its writes within
        ``ms`` (WAIT, sent with it on the same link: WAIT counts the writes of
        its own connection)."""
        sha = self.shas.get(source)
        if sha is None:
            sha = self.shas[source] = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()
        rep, acked = self.call_all([("EVALSHA", sha, len(keys), *keys, *args), ("WAIT", replicas, ms)])
        if isinstance(rep, redis.ResponseError) and str(rep).startswith("NOSCRIPT"):
            rep, acked = self.call_all([("EVAL", source, len(keys), *keys, *args), ("WAIT", replicas, ms)])
        for r in (rep, acked):
            if isinstance(r, redis.ResponseError):
                raise r
        return rep, int(acked)

    def call(self, command: tuple[Any, ...]) -> Any:
        rep = self.call_all([command])[0]
        if isinstance(rep, redis.ResponseError):
            raise rep
        return rep

    def call_all(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """The replies of ``commands``, sent together on one link; an error
        reply is a ``ResponseError`` in the list, not raised (the link stays
        in step with its replies)."""
        if not self.slots.acquire(timeout=self.pool_timeout):
            raise redis.ConnectionError("No connection available.")
        try:
            for attempt in range(ATTEMPTS):
                reused = bool(self.idle)
                try:
                    link = self.idle.pop() if reused else Link(self)
                except OSError as exc:
                    raise redis_error(exc) from exc
                try:
                    link.send_all(commands)
                    reps = [link.reply_or_error() for _ in commands]
                except (OSError, redis.ConnectionError) as exc:
                    link.close()
                    if reused and attempt + 1 < ATTEMPTS and not isinstance(exc, TimeoutError):
                        # The idle links are as old as this one: after a
                        # restart all of them are dead.
                        self.close()
                        continue
                    if isinstance(exc, redis.ConnectionError):
                        raise
                    raise redis_error(exc) from exc
                except BaseException:
                    # Anything else (a greenlet killed mid-read) leaves the
                    # link out of step with its replies: never reuse it.
                    link.close()
                    raise
                self.idle.append(link)
                return reps
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            self.slots.release()

    def close(self) -> None:
        while self.idle:
            self.idle.pop().close()

