"""The WebSocket adapter: the socket route (``route.py``) and this process's
fan-out hub (``hub.py``)."""

from server.live.connection import Connection
from server.live.hub import Hub
from server.live.route import init_app

__all__ = ["Connection", "Hub", "init_app"]
