"""Writing to a socket under gevent without its ``sendall``'s extra work."""

from __future__ import annotations

from typing import Any


def send_whole(sock: Any, data: bytes) -> None:
    """All of ``data`` on ``sock``: one ``send`` when the socket's buffer takes
    it whole, as it does for nearly every frame; ``sendall`` for what is left.
    gevent's ``sendall`` asks the kernel for the buffer size (a getsockopt)
    and slices a memoryview before every send, for every frame and every
    store command (``server/store/resp.py``): the ``send_whole`` row of
    docs/performance.md, "Why each fast path exists"."""
    sent = sock.send(data)
    if sent < len(data):
        sock.sendall(memoryview(data)[sent:])
