"""Writing to a socket under gevent without its ``sendall``'s extra work."""

from __future__ import annotations

from typing import Any


def send_whole(sock: Any, data: bytes) -> None:
    """All of ``data`` on ``sock``: one ``send`` when the socket's buffer takes
    it whole, as it does for nearly every frame; ``sendall`` for what is left.
    gevent's ``sendall`` asks the kernel for the buffer size (a getsockopt)
    and slices a memoryview before every send: 2.5 % of the worker's busy
    time at 5,000 phones, for frames of a few KB, and 3.6 % of an action's
    commit (``bench/action_cpu.py --gevent`` under py-spy) for the store's
    commands (``server/store/resp.py``)."""
    sent = sock.send(data)
    if sent < len(data):
        sock.sendall(memoryview(data)[sent:])
