"""Which server files one WebSocket action runs, in the order it first enters
them, from the phone's frame to the other phones' frames:

    .venv/bin/python bench/path.py [--game camelup] [--actions 12] [--phones 3]

It starts its own redis-server and one server instance in its production
serving model (gunicorn + gevent, ``server/gunicorn_conf.py``), with a
profiler (``sys.setprofile``) in the worker. A table of ``--phones`` seats
plays ``--actions`` real actions over the seats' sockets, each the acting
seat's first offer (free inputs filled as ``bench/load.py`` fills them), after a
few untraced ones. For a traced action the profiler follows the greenlet that
read its frame, from ``live/route.py``'s ``receive`` handing it over until
``live/route.py``'s ``_handle`` returns: the commit, the push to every phone
of the table and the actor's result run there (``live/hub.py``'s ``wrote``).
It prints, for each action type, the files every traced action of that type
ran, in the order first entered, with the functions first entered in each.

A file counts when code defined in it runs (a call event in it), so a module
of types (a ``TypedDict``, a ``dataclass`` whose generated methods are defined
elsewhere) is not counted unless a function of it runs. The engine's own
modules are left out (``engines/``): the issue's path is the server's.
Another checkout's path: run that checkout's copy of this script (it traces
the server beside it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: A traced action's request_id starts with this.
MARK = "path-trace-"


def serve(out: str) -> None:
    """The server's instance, as ``gunicorn -c server/gunicorn_conf.py``, with
    the profiler set before the worker forks (the worker's main thread keeps
    it; every greenlet runs on that thread)."""
    import greenlet  # type: ignore[import-untyped]

    server = str(ROOT / "server") + os.sep
    engines = str(ROOT / "engines") + os.sep
    active: list[Any] = []
    files: dict[str, list[str]] = {}

    def prof(frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if not active:
            if (event == "return" and code.co_name == "receive" and code.co_filename.endswith("live/route.py")
                    and isinstance(arg, str) and MARK in arg):
                active.append(greenlet.getcurrent())
                files.clear()
                files["server/live/route.py"] = ["receive"]
            return
        if greenlet.getcurrent() is not active[0]:
            return
        name = code.co_filename
        if event == "call" and name.startswith(server) and not name.startswith(engines):
            funcs = files.setdefault(os.path.relpath(name, ROOT), [])
            if code.co_name not in funcs:
                funcs.append(code.co_name)
        elif event == "return" and code.co_name == "_handle" and name.endswith("live/route.py"):
            active.clear()
            with open(out, "a") as f:
                f.write(json.dumps(files) + "\n")

    sys.setprofile(prof)
    sys.argv = ["gunicorn", "-c", str(ROOT / "server/gunicorn_conf.py"), "server:create_app()"]
    from gunicorn.app.wsgiapp import run

    run()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="camelup", choices=["camelup", "kingup", "countup"])
    ap.add_argument("--phones", type=int, default=3)
    ap.add_argument("--actions", type=int, default=12, help="actions traced")
    ap.add_argument("--warmup", type=int, default=4, help="actions played first, untraced")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--serve", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve)
        return

    import websocket

    from bench.loadkit.servers import free_port, start_redis, wait_http
    from bench.loadkit.tables import fill, http

    rport, port = free_port(), free_port()
    redis_proc = start_redis(rport)
    out = tempfile.NamedTemporaryFile(prefix="tablemate-path-", suffix=".jsonl", delete=False).name
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{rport}/0", "BIND": f"127.0.0.1:{port}",
           "PYTHONPATH": str(ROOT), "LOG_LEVEL": "warning"}
    base = f"http://127.0.0.1:{port}"
    inst = subprocess.Popen([sys.executable, __file__, "--serve", out], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(base + "/healthz")
        run(base, args, out, fill, http, websocket)
    finally:
        inst.terminate()
        inst.wait(10)
        redis_proc.terminate()
        Path(out).unlink(missing_ok=True)


def run(base: str, args: argparse.Namespace, out: str, fill: Any, http: Any, websocket: Any) -> None:
    rng = random.Random(args.seed)
    created = http(base, "POST", "/api/tables", {"game": args.game, "name": "Host"})
    table = created["table"]
    seats = [(created["player"]["id"], created["player"]["token"])]
    for k in range(args.phones - 1):
        j = http(base, "POST", f"/api/tables/{table}/players", {"name": f"P{k + 2}"})
        seats.append((j["player"]["id"], j["player"]["token"]))
    http(base, "POST", f"/api/tables/{table}/actions", {"action": {"type": "start"}, "request_id": "go"}, seats[0][1])
    url = base.replace("http", "ws", 1) + f"/api/tables/{table}/ws"
    views: dict[str, dict[str, Any]] = {}
    results: dict[str, dict[str, Any]] = {}
    lock = threading.Condition()
    socks = {}

    def reader(pid: str, ws: Any) -> None:
        while True:
            try:
                msg = json.loads(ws.recv())
            except Exception:  # noqa: BLE001 - the socket closed at the end
                return
            with lock:
                if msg.get("type") == "state":
                    views[pid] = msg
                elif msg.get("type") in ("result", "error") and msg.get("request_id"):
                    results[msg["request_id"]] = msg
                lock.notify_all()

    for pid, token in seats:
        ws = websocket.create_connection(url, subprotocols=["tablemate", f"tablemate.token.{token}"],
                                         origin=base)
        socks[pid] = ws
        threading.Thread(target=reader, args=(pid, ws), daemon=True).start()
    with lock:
        lock.wait_for(lambda: len(views) == len(seats), 10)

    traced: list[tuple[str, dict[str, list[str]]]] = []
    for n in range(args.warmup + args.actions):
        with lock:
            offers = [(pid, fill(args.game, t, v["view"], rng)) for pid, v in views.items() for t in v.get("legal", [])]
        offers = [(pid, a) for pid, a in offers if a is not None]
        if not offers:
            print(f"no action offered after {n} actions: the game is over or waits for the host")
            break
        pid, action = rng.choice(offers)
        rid = f"{MARK if n >= args.warmup else 'warm-'}{n}"
        before = os.path.getsize(out)
        version = views[pid]["version"]
        socks[pid].send(json.dumps({"type": "action", "action": action, "request_id": rid, "version": version}))
        with lock:
            def told(rid: str = rid, version: int = version) -> bool:
                return rid in results and all(v["version"] > version for v in views.values())

            if not lock.wait_for(told, 10):
                sys.exit(f"{rid}: no answer, or a phone was not told ({results.get(rid)})")
            if results[rid]["type"] == "error":
                sys.exit(f"{rid} refused: {results[rid]}")
        if n >= args.warmup:
            deadline = time.monotonic() + 5
            while os.path.getsize(out) == before and time.monotonic() < deadline:
                time.sleep(0.01)
            if os.path.getsize(out) == before:
                sys.exit(f"{rid}: answered, but the profiler wrote no trace of it")
            with open(out) as f:
                traced.append((action["type"], json.loads(f.readlines()[-1])))
    for ws in socks.values():
        ws.close()

    by_type: dict[str, dict[str, list[str]]] = {}
    for kind, files in traced:
        union = by_type.setdefault(kind, {})
        for name, funcs in files.items():
            union.setdefault(name, []).extend(f for f in funcs if f not in union[name])
    for kind, union in sorted(by_type.items()):
        n = sum(1 for k, _ in traced if k == kind)
        print(f"\n{kind} ({n} traced): {len(union)} server files, in the order first entered")
        for name, funcs in union.items():
            print(f"  {name:34} {', '.join(funcs)}")
    print("\nper action type, files (every traced action of the type together):")
    for kind, union in sorted(by_type.items()):
        print(f"  {kind:14} {len(union):3}")


if __name__ == "__main__":
    main()
