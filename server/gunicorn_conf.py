"""Gunicorn settings: the production serving model (see docs/architecture.md).

gevent workers hold each WebSocket as a greenlet, so one process keeps
thousands of idle phones connected; a thread per socket would not.

This file must not import the app (``server`` and its dependencies) in the
master: gevent patches ``ssl``, ``threading`` and ``socket`` when the worker
boots, and modules imported before that (redis imports ``ssl``) keep the
unpatched ones (gevent's ``MonkeyPatchWarning``). Everything that needs the
app runs in worker hooks.
"""

import os
import tempfile
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
# Off unless asked for (TABLEMATE_ACCESS_LOG=-): query strings carry tokens, which
# server/security.py's filter redacts from every line.
accesslog = os.environ.get("TABLEMATE_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")

# Gunicorn 25+ opens a control socket, by default one fixed path per user
# (~/.gunicorn/gunicorn.ctl) that every gunicorn of that user fights over (tests
# start many servers at once). One per run, named after this master's pid, in
# the temporary folder; gunicorn removes it at shutdown. Older releases ignore
# the setting.
control_socket = os.environ.get(
    "TABLEMATE_CONTROL_SOCKET",
    os.path.join(tempfile.gettempdir(), f"tablemate-gunicorn-{os.getpid()}.ctl"),
)


def post_worker_init(worker: Any) -> None:  # gunicorn's hook signature (gunicorn is untyped)
    import signal

    from server.gc_tuning import tune

    tune()
    # Ctrl-C in a terminal signals the whole process group: the master stops
    # the workers itself (SIGQUIT), and a worker that also handled the SIGINT
    # would exit twice and print gevent's SystemExit traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Announced from the first worker, once it has imported the app: printing
    # the URL from the master would mean importing the app there (see above).
    if worker.age == 1:
        from server.lan import announce

        _, _, port = bind.rpartition(":")
        announce(int(port), embedded=not os.environ.get("REDIS_URL"))


def worker_exit(server: Any, worker: Any) -> None:  # gunicorn's hook signature (untyped)
    # At interpreter teardown logging's handler weakrefs call into gevent's
    # patched threading after gevent's modules are gone, and print a
    # traceback on every Ctrl-C or SIGTERM. Closing the handlers now, while
    # everything is alive, leaves nothing for that teardown to do.
    import logging

    logging.shutdown()
    logging.getLogger().handlers.clear()
