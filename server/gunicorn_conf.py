"""Gunicorn settings: the production serving model (see docs/architecture.md).

gevent workers hold each WebSocket as a greenlet, so one process keeps
thousands of idle phones connected; a thread per socket would not.
"""

import os
from typing import Any

bind = os.environ.get("BIND", f"0.0.0.0:{os.environ.get('PORT', '8000')}")
worker_class = "gevent"
# One worker per instance: the embedded store lives in that process, and with
# Redis we scale by adding instances (fan-out goes through Redis anyway).
workers = int(os.environ.get("WEB_CONCURRENCY", "1"))
worker_connections = int(os.environ.get("TABLEMATE_MAX_CONNECTIONS", "10000"))
timeout = 60
graceful_timeout = 5  # open sockets reconnect to another instance anyway
keepalive = 5
accesslog = None  # query strings may carry tokens; see server/security.py
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")


def post_worker_init(worker: Any) -> None:  # gunicorn's hook signature (gunicorn is untyped)
    from server.gc_tuning import tune

    tune()


def when_ready(server: Any) -> None:  # gunicorn's hook signature (gunicorn is untyped)
    from server.lan import announce

    host, _, port = bind.rpartition(":")
    announce(int(port), embedded=not os.environ.get("REDIS_URL"))
