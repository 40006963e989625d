"""Seats without a phone in e2e tests (issue 17): added by the host's token."""

from __future__ import annotations

import json
import urllib.request


def add_phoneless(server: str, table: str, token: str, name: str) -> str:
    """Adds a seat without a phone in the lobby; returns its id (it gets no token)."""
    req = urllib.request.Request(
        f"{server}/api/tables/{table}/players", method="POST",
        data=json.dumps({"name": name, "phone": False}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        body = json.load(r)
    assert "token" not in body["player"]
    return body["player"]["id"]
