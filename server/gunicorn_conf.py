"""Gunicorn settings: the production serving model (see docs/architecture.md).

gevent workers hold each WebSocket as a greenlet, so one process keeps
thousands of idle phones connected; a thread per socket would not.

This file must not import the app (``server`` and its dependencies) in the
master: gevent patches ``ssl``, ``threading`` and ``socket`` when the worker
boots, and modules imported before that (redis imports ``ssl``) keep the
unpatched ones (gevent's ``MonkeyPatchWarning``). Everything that needs the
app runs in worker hooks.
"""

import json
import os
import tempfile
from ssl import SSLError
from typing import Any

from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.ggevent import GeventWorker

bind = os.environ.get("BIND", f"0.0.0.0:{os.environ.get('PORT', '8000')}")


def refusal(exc: BaseException) -> tuple[int, str, str, str]:
    """(status, reason, code, message) of the answer to a request gunicorn
    could not hand to the app: the client's fault (a malformed or oversized
    request) or, for anything else, the server's (500 ``internal``, as the
    app answers its own crashes).

    >>> refusal(http_errors.LimitRequestLine(9000, 4094))[:3]
    (414, 'URI Too Long', 'request_line_too_long')
    >>> refusal(http_errors.InvalidRequestLine("GARBAGE"))[:3]
    (400, 'Bad Request', 'bad_request')
    >>> refusal(RuntimeError("boom"))[:3]
    (500, 'Internal Server Error', 'internal')
    """
    if isinstance(exc, http_errors.LimitRequestLine):
        return (414, "URI Too Long", "request_line_too_long",
                "The request line (method and address) is too long.")
    if isinstance(exc, http_errors.LimitRequestHeaders):
        return (431, "Request Header Fields Too Large", "headers_too_large",
                "The request's headers are too many or too large.")
    # A response header the app built is the app's fault, like a bad configuration.
    servers = (http_errors.InvalidResponseHeader, http_errors.InvalidResponseHeaderName,
               http_errors.ConfigurationProblem)
    if isinstance(exc, (http_errors.ParseException, SSLError)) and not isinstance(exc, servers):
        return 400, "Bad Request", "bad_request", "The request is not valid HTTP."
    return 500, "Internal Server Error", "internal", "Something went wrong on the server."


class JsonErrorWorker(GeventWorker):  # type: ignore[misc]  # gunicorn is untyped
    """gunicorn's gevent worker, whose own answers (requests refused before the
    app sees them) carry the API's JSON error envelope, not an HTML page.

    Defined here, not in ``server``: gunicorn loads the worker class in the
    master, which must not import the app (see above)."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        status, reason, code, message = refusal(exc)
        ip = addr[0] if addr else ""
        if status < 500:
            self.log.warning("Invalid request from ip=%s: %s", ip, exc)
        else:
            self.log.exception("Error handling request (ip=%s)", ip)
        body = json.dumps({"error": {"code": code, "message": message}}).encode()
        head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        try:
            util.write_nonblock(client, head.encode("latin-1") + body)
        except Exception:
            self.log.debug("Failed to send error message.")


worker_class = JsonErrorWorker
# One worker per instance: the embedded store lives in that process, and with
# Redis we scale by adding instances (fan-out goes through Redis anyway).
workers = int(os.environ.get("WEB_CONCURRENCY", "1"))
worker_connections = int(os.environ.get("TABLEMATE_MAX_CONNECTIONS", "10000"))
timeout = 60
graceful_timeout = 5  # open sockets reconnect to another instance anyway
keepalive = 5
# Off unless asked for (TABLEMATE_ACCESS_LOG=-): query strings carry tokens, which
# server/http/security.py's filter redacts from every line.
accesslog = os.environ.get("TABLEMATE_ACCESS_LOG") or None
# HTTPS served by gunicorn itself, for play on a LAN (docs/deploy.md): a certificate
# the phones trust. The key may also sit in the certificate's file.
certfile = os.environ.get("TABLEMATE_TLS_CERT") or None
keyfile = os.environ.get("TABLEMATE_TLS_KEY") or None
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

    from server.runtime import tune

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
        announce(int(port), embedded=not os.environ.get("REDIS_URL"), tls=certfile is not None,
                 public_url=os.environ.get("TABLEMATE_PUBLIC_URL") or None)


def worker_exit(server: Any, worker: Any) -> None:  # gunicorn's hook signature (untyped)
    # At interpreter teardown logging's handler weakrefs call into gevent's
    # patched threading after gevent's modules are gone, and print a
    # traceback on every Ctrl-C or SIGTERM. Closing the handlers now, while
    # everything is alive, leaves nothing for that teardown to do.
    import logging

    logging.shutdown()
    logging.getLogger().handlers.clear()
