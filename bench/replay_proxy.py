"""A stand-in for Fly's proxy, so the bench measures table routing as deployed
(``TABLEMATE_ROUTE=fly``, docs/deploy.md "Table routing"):

    python -m bench.replay_proxy --listen 127.0.0.1:8080 --instance m1=127.0.0.1:9001 --instance m2=127.0.0.1:9002

What it does of Fly's proxy, and no more:
- a request goes to the instances in turn (Fly balances a new request over the
  machines; which one a phone lands on is not the app's to choose);
- an answer carrying ``fly-replay: prefer_instance=<id>`` (or ``instance=<id>``)
  is not shown to the client: the same request, body included, is sent again to
  that instance with ``Fly-Replay-Src: instance=<first>``, and its answer is the
  client's. ``prefer_instance`` falls back to another instance when the named one
  does not take the connection, ``instance`` answers 503 then (Fly's documented
  difference). A replayed request's own ``fly-replay`` is passed on, never replayed
  again;
- a WebSocket upgrade is routed the same way; once upgraded, bytes are copied
  both ways until either side closes.
Each plain request gets its own upstream connection (``Connection: close``).
Requests with a chunked body are refused (501): the bench's clients send none.
It counts requests, replays and upgrades and, given ``--stats FILE``, writes them
there as JSON when it is stopped (SIGINT/SIGTERM).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

HEAD_LIMIT = 64 * 1024
REPLAY_HEADER = "fly-replay"
SRC_HEADER = "Fly-Replay-Src"


@dataclass
class Counts:
    requests: int = 0
    replays: int = 0
    upgrades: int = 0
    fallbacks: int = 0       # prefer_instance whose instance did not answer
    refused: int = 0         # answered by the proxy itself (no instance, bad request)


class BadRequest(Exception):
    pass


def parse_head(raw: bytes) -> tuple[str, list[tuple[str, str]]]:
    """The first line and the headers (in order, names as sent) of an HTTP head.

    >>> parse_head(b"GET / HTTP/1.1\\r\\nHost: a\\r\\nX-Y: 1 \\r\\n\\r\\n")
    ('GET / HTTP/1.1', [('Host', 'a'), ('X-Y', '1')])
    """
    lines = raw.decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise BadRequest(line)
        headers.append((name.strip(), value.strip()))
    return lines[0], headers


def header(headers: list[tuple[str, str]], name: str) -> str | None:
    name = name.lower()
    return next((v for k, v in headers if k.lower() == name), None)


def build_head(first: str, headers: list[tuple[str, str]]) -> bytes:
    return ("\r\n".join([first, *(f"{k}: {v}" for k, v in headers)]) + "\r\n\r\n").encode("latin-1")


def replay_target(value: str) -> tuple[str, bool] | None:
    """(instance, strict) from a ``fly-replay`` value; None if it names none.

    >>> replay_target("prefer_instance=m2")
    ('m2', False)
    >>> replay_target("instance=m1;state=x")
    ('m1', True)
    >>> replay_target("region=ams") is None
    True
    """
    for field in value.replace(",", ";").split(";"):
        key, _, val = field.strip().partition("=")
        if key == "instance":
            return val, True
        if key == "prefer_instance":
            return val, False
    return None


class Proxy:
    def __init__(self, instances: dict[str, tuple[str, int]]) -> None:
        self.instances = instances
        self.order = itertools.cycle(list(instances))
        self.counts = Counts()
        self.tasks: set[asyncio.Task[None]] = set()

    async def connect(self, name: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        host, port = self.instances[name]
        return await asyncio.open_connection(host, port, limit=HEAD_LIMIT)

    async def ask(self, name: str, head: bytes, body: bytes
                  ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, str, list[tuple[str, str]]]:
        """Sends the request to one instance; back, its connection and answer's head."""
        reader, writer = await self.connect(name)
        writer.write(head + body)
        await writer.drain()
        first, headers = parse_head(await reader.readuntil(b"\r\n\r\n"))
        return reader, writer, first, headers

    async def refuse(self, writer: asyncio.StreamWriter, status: str, code: str) -> None:
        self.counts.refused += 1
        body = json.dumps({"error": {"code": code, "message": f"replay proxy: {code}"}}).encode()
        writer.write(build_head(f"HTTP/1.1 {status}", [("Content-Type", "application/json"),
                                                       ("Content-Length", str(len(body))),
                                                       ("Connection", "close")]) + body)
        await writer.drain()

    async def serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        # Held here: once the client's side is gone asyncio keeps no strong
        # reference to this task (an upstream stream's protocol holds its reader
        # weakly), and a task still copying the instance's answer was collected.
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        try:
            await self._serve(client_r, client_w)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass  # stopped with sockets open: nothing to tell them
        finally:
            client_w.close()
            self.tasks.discard(task)

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            first, headers = parse_head(await client_r.readuntil(b"\r\n\r\n"))
        except BadRequest:
            await self.refuse(client_w, "400 Bad Request", "bad_request")
            return
        if (header(headers, "transfer-encoding") or "").lower() == "chunked":
            await self.refuse(client_w, "501 Not Implemented", "chunked_body")
            return
        body = await client_r.readexactly(int(header(headers, "content-length") or 0))
        upgrade = (header(headers, "upgrade") or "").lower() == "websocket"
        if not upgrade:
            headers = [(k, v) for k, v in headers if k.lower() != "connection"] + [("Connection", "close")]
        self.counts.requests += 1
        landed = next(self.order)
        up_r, up_w, status, answer = await self.ask(landed, build_head(first, headers), body)
        wanted = header(answer, REPLAY_HEADER)
        target = replay_target(wanted) if wanted else None
        if target is not None:
            up_w.close()
            self.counts.replays += 1
            replayed = build_head(first, [*headers, (SRC_HEADER, f"instance={landed};t={int(time.time() * 1e6)}")])
            name, strict = target
            # prefer_instance: any other instance when the named one does not answer.
            tries = [name] if strict else [name, *(n for n in self.instances if n != name)]
            for candidate in (t for t in tries if t in self.instances):
                try:
                    up_r, up_w, status, answer = await self.ask(candidate, replayed, body)
                    break
                except OSError:
                    if not strict:
                        self.counts.fallbacks += 1
            else:
                await self.refuse(client_w, "503 Service Unavailable", "no_instance")
                return
        try:
            client_w.write(build_head(status, answer))
            if status.split(" ", 2)[1] == "101":
                self.counts.upgrades += 1
                await asyncio.gather(copy(client_r, up_w), copy(up_r, client_w))
            else:
                await copy(up_r, client_w)
        finally:
            up_w.close()


async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    """Bytes from one side to the other until the source closes; then the other
    side is told (half close), as a TCP proxy does."""
    try:
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        if dst.can_write_eof() and not dst.is_closing():
            try:
                dst.write_eof()
            except OSError:
                pass


def address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


async def main_async(args: argparse.Namespace) -> None:
    instances = {}
    for item in args.instance:
        name, _, where = item.partition("=")
        instances[name] = address(where)
    proxy = Proxy(instances)
    host, port = address(args.listen)
    server = await asyncio.start_server(proxy.serve, host, port, limit=HEAD_LIMIT, backlog=4096)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()
        if args.stats:
            Path(args.stats).write_text(json.dumps(asdict(proxy.counts)))
        rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in rest:
            task.cancel()
        await asyncio.gather(*rest, return_exceptions=True)


# -- for bench/load.py --------------------------------------------------------

def routing_env(name: str) -> dict[str, str]:
    """An instance's settings under the proxy, as on Fly (Fly sets FLY_MACHINE_ID)."""
    return {"TABLEMATE_ROUTE": "fly", "FLY_MACHINE_ID": name}


def wait_routed(instances: dict[str, str], timeout: float = 30) -> None:
    """Until every instance routes to every other: each answers a table the
    other owns with that one's ``fly-replay`` (an instance learns of the others
    at its beats, every ``routing.BEAT`` s), so no phone of the run is served
    by an instance that does not yet know the table's owner."""
    from server.http.routing import owner  # the bench's own checkout's hash

    names = sorted(instances)
    deadline = time.monotonic() + timeout
    for name, base in instances.items():
        for other in names:
            if other == name:
                continue
            probe = next(f"probe{i}" for i in itertools.count() if owner(f"probe{i}", names) == other)
            while True:
                try:
                    urllib.request.urlopen(f"{base}/api/tables/{probe}", timeout=5).close()
                except urllib.error.HTTPError as e:
                    if e.headers.get(REPLAY_HEADER) == f"prefer_instance={other}":
                        break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{name} never routed to {other}")
                time.sleep(0.2)


@dataclass
class Running:
    proc: subprocess.Popen[bytes]
    base: str
    stats: Path

    def stop(self) -> dict[str, int]:
        """Stops it; back, its counts."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return {}
        counts: dict[str, int] = json.loads(self.stats.read_text()) if self.stats.exists() else {}
        return counts


def start(instances: dict[str, str], port: int) -> Running:
    """The proxy in its own process (its CPU is not the generator's, nor an
    instance's), in front of ``instances`` (name -> http://host:port)."""
    stats = Path(tempfile.mkdtemp()) / "proxy.json"
    argv = [sys.executable, "-m", "bench.replay_proxy", "--listen", f"127.0.0.1:{port}", "--stats", str(stats)]
    for name, base in instances.items():
        argv += ["--instance", f"{name}={base.removeprefix('http://')}"]
    proc = subprocess.Popen(argv, cwd=Path(__file__).resolve().parent.parent)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while True:
        try:
            urllib.request.urlopen(f"{base}/healthz", timeout=2).close()
            return Running(proc, base, stats)
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise
            time.sleep(0.1)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--listen", required=True, help="host:port")
    ap.add_argument("--instance", action="append", required=True, help="name=host:port (name: its FLY_MACHINE_ID)")
    ap.add_argument("--stats", help="write the counts here as JSON when stopped")
    asyncio.run(main_async(ap.parse_args(argv)))


if __name__ == "__main__":
    main()
