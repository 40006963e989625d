"""Requests gunicorn refuses before the app sees them (issue 30, item 7): a too
long request line, too large headers, malformed HTTP. A real gunicorn answers
them with the API's JSON error envelope, over raw sockets."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest


def raw(port: int, request: bytes) -> tuple[int, dict[str, str], Any]:
    """Sends ``request`` as is and reads the answer to the end (the server closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, json.loads(body)


@pytest.fixture(scope="module")
def server(redis_server):
    from conftest import AppServer

    s = AppServer(redis_server.url)
    yield s
    s.close()


@pytest.mark.parametrize(("request_bytes", "status", "code"), [
    (b"GET /api/games?" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request_line_too_long"),
    (b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431, "headers_too_large"),
    (b"GET /api/games HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120)) + b"\r\n",
     431, "headers_too_large"),
    (b"GARBAGE\r\n\r\n", 400, "bad_request"),
    (b"GET /api/games HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", 400, "bad_request"),
    (b"GET /api/games HTTP/9.9\r\nHost: x\r\n\r\n", 400, "bad_request"),
], ids=["long-line", "big-header", "many-headers", "garbage", "bad-header-name", "bad-version"])
def test_gunicorn_refusals_use_the_json_error_envelope(server, request_bytes: bytes, status: int,
                                                         code: str) -> None:
    got, headers, body = raw(server.port, request_bytes)
    assert got == status
    assert headers["content-type"] == "application/json"
    assert set(body) == {"error"} and body["error"]["code"] == code
    assert body["error"]["message"] and "<" not in body["error"]["message"]


def test_the_server_still_serves_after_refusals(server) -> None:
    raw(server.port, b"GARBAGE\r\n\r\n")
    got, _, body = raw(server.port, b"GET /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert got == 200 and isinstance(body, list | dict)
    assert "Traceback" not in server.logs()


def _chunked(path: str, body: bytes) -> bytes:
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 8192]), body[i:i + 8192]) for i in range(0, len(body), 8192))
    return (b"POST " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks + b"0\r\n\r\n")


def test_a_chunked_body_over_the_limit_is_refused_not_cut(server) -> None:
    """Bodies are limited to 64 KiB whatever their framing: sent chunked (no
    Content-Length), werkzeug's stream stopped at the limit and the app read
    the cut body, so a small valid body padded past it was taken."""
    name = json.dumps({"game": "camelup", "name": "Ann"}).encode()
    got, _, body = raw(server.port, _chunked("/api/tables", name + b" " * 100_000))
    assert (got, body["error"]["code"]) == (413, "too_large")
    got, _, body = raw(server.port, _chunked("/api/tables", name))
    assert got == 201 and body["table"]
