from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import skip_or_fail
from server import create_app
from tests.sealed_votes import VoteSeals
from tests.toy_engine import TOY

_ids = itertools.count()


@pytest.fixture
def app(redis_url: str):
    # web/'s modules as written, whatever build/web holds: tests/server/http/test_bundles.py
    # serves a fresh build of them. The host may step in for a waited seat at
    # once: tests/server/service/test_stall_guard.py tests the wait.
    return create_app({"REDIS_URL": redis_url, "EXTRA_ENGINES": [TOY], "FIXED_RANDOM": True,
                       "RATE_CREATE": 1000, "RATE_JOIN": 1000, "RATE_CODE": 1000, "WEB_BUILD": None,
                       "STALL_AFTER": 0})


@pytest.fixture
def client(app):
    return app.test_client()


class Phone:
    """One seat's view of the HTTP API."""

    def __init__(self, client: Any, table: str, pid: str, token: str) -> None:
        self.client, self.table, self.id, self.token = client, table, pid, token

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def act(self, type_: str, request_id: str | None = None, version: int | None = None, **payload: Any):
        body: dict[str, Any] = {"action": {"type": type_, **payload},
                                "request_id": request_id or f"r{next(_ids)}"}
        if version is not None:
            body["version"] = version
        return self.client.post(f"/api/tables/{self.table}/actions", json=body, headers=self.auth)

    def get(self):
        return self.client.get(f"/api/tables/{self.table}", headers=self.auth)

    def send(self, action: dict[str, Any]):
        """``action`` (its ``type`` with its payload) sent as it is."""
        return self.act(action["type"], **{k: v for k, v in action.items() if k != "type"})

    def vote(self, vote: str, seals: VoteSeals):
        """King Up: ``vote`` cast as the app casts it, sealed (``seals`` keeps its opening)."""
        return self.send(seals.vote(self.get().json, self.id, vote))


def open_votes(phones: list[Phone], seals: VoteSeals):
    """Every vote ``seals`` keeps that the election asks to open, each sent
    by its own phone; the last answer (the reveal's when it was the last)."""
    by_id = {p.id: p for p in phones}
    last = None
    for seat, action in seals.openings(phones[0].get().json):
        last = by_id[seat].send(action)
        assert last.status_code == 200, last.json
    return last


def open_table(client: Any, joiners: int = 2, game: str = "toy", options: dict | None = None) -> list[Phone]:
    r = client.post("/api/tables", json={"game": game, "name": "Host", "options": options or {}})
    assert r.status_code == 201, r.json
    table = r.json["table"]
    phones = [Phone(client, table, "p1", r.json["player"]["token"])]
    for i in range(joiners):
        j = client.post(f"/api/tables/{table}/players", json={"name": f"P{i + 2}"})
        assert j.status_code == 201, j.json
        phones.append(Phone(client, table, j.json["player"]["id"], j.json["player"]["token"]))
    return phones


def take_seat(client: Any, host: Phone, pid: str) -> Phone:
    """A new phone takes seat ``pid`` with the host's one-time rejoin code."""
    r = client.post(f"/api/tables/{host.table}/players/{pid}/rejoin", headers=host.auth, json={})
    assert r.status_code == 200, r.json
    c = client.post(f"/api/tables/{host.table}/claim", json={"claim": r.json["claim"]})
    assert c.status_code == 201, c.json
    return Phone(client, host.table, pid, c.json["player"]["token"])


@pytest.fixture
def table(client):
    return open_table(client)


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 and localhost, made by the openssl CLI."""
    if shutil.which("openssl") is None:
        skip_or_fail("the openssl command is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, capture_output=True, timeout=60)
    return str(cert), str(key)
