"""Recording what one phone receives, for the secrets audits of every game."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Page, Response, WebSocket


class Traffic:
    """Everything one phone receives: WebSocket frames and /api/ response bodies.

    ``seat`` is the test's own label for the phone (whatever the test needs to
    tell phones apart; some fill it in once the phone has a seat id).
    """

    def __init__(self, page: Page, seat: Any = None) -> None:
        self.seat = seat
        self.messages: list[tuple[str, Any]] = []
        page.on("websocket", self._socket)
        page.on("response", self._response)

    def _socket(self, ws: WebSocket) -> None:
        ws.on("framereceived", lambda payload: self._add(f"ws {ws.url.split('?')[0]}", payload))

    def _response(self, res: Response) -> None:
        if "/api/" not in res.url:
            return
        try:
            body = res.text()
        except Exception:  # noqa: BLE001  (a redirect or an aborted request has no body)
            return
        self._add(f"http {res.url}", body)

    def _add(self, where: str, payload: str | bytes) -> None:
        text = payload.decode() if isinstance(payload, bytes) else payload
        try:
            self.messages.append((where, json.loads(text)))
        except ValueError:
            self.messages.append((where, text))
