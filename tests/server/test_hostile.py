"""Hostile input (issue 12): every payload gets a 4xx or an error frame with a
stable code, never a 500 or a traceback, and leaves the table as it was."""

from __future__ import annotations

import json
import random
import time
import urllib.request

import pytest

from tests.server.conftest import open_table
from tests.server.livehelpers import http, open_live_table

DEEP = "[" * 5000 + "]" * 5000


def test_deep_json_over_http_is_400_not_500(client) -> None:
    host, _a, _b = open_table(client)
    for path in ("/api/tables", f"/api/tables/{host.table}/actions", f"/api/tables/{host.table}/players"):
        r = client.post(path, data=DEEP, headers={**host.auth, "Content-Type": "application/json"})
        assert r.status_code == 400 and r.json["error"]["code"] == "too_deep", (path, r.json)
    nested = {"action": {"type": "add", "n": 1}, "request_id": "x", "junk": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}
    r = client.post(f"/api/tables/{host.table}/actions", json=nested, headers=host.auth)
    assert r.status_code == 400 and r.json["error"]["code"] == "too_deep"
    assert host.get().json["version"] == 3, "nothing changed"


def test_strings_full_of_brackets_are_not_nesting(client) -> None:
    r = client.post("/api/tables", json={"game": "toy", "name": "[[[[{{{{" * 3})
    assert r.status_code == 201, r.json


@pytest.mark.parametrize("name", ["a\u2028b", "Mi\u2029na"])
def test_line_and_paragraph_separators_are_refused_in_names(client, name: str) -> None:
    """U+2028/9 break a name onto two lines wherever it is shown, and end a
    line inside a JavaScript string in older parsers."""
    r = client.post("/api/tables", json={"game": "toy", "name": name})
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_name", repr(name)
    host, _a, _b = open_table(client)
    r = host.act("rename", player="p1", name=name)
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_name"


@pytest.mark.parametrize("version", [2**64, 2**31 + 1, -1])
def test_a_version_no_table_could_have_is_refused(client, version: int) -> None:
    host, _a, _b = open_table(client)
    before = host.get().json
    r = client.post(f"/api/tables/{host.table}/actions", headers=host.auth,
                    json={"action": {"type": "rename", "player": "p1", "name": "X"}, "request_id": "v", "version": version})
    assert r.status_code == 400 and r.json["error"]["code"] == "invalid_payload", r.json
    assert host.get().json == before


def test_a_binary_frame_is_never_applied(app_server_factory) -> None:
    """The protocol is JSON text: a binary frame holding a valid action's JSON
    gets an error frame and changes nothing; the socket stays usable."""
    server = app_server_factory()
    host, _a = open_live_table(server.url, joiners=1)
    host.connect()
    assert host.ws is not None
    action = {"type": "action", "action": {"type": "rename", "player": "p1", "name": "Binary"}, "request_id": "b"}
    host.ws.send_binary(json.dumps(action).encode())
    err = host.wait_message("error")
    assert err["error"]["code"] == "binary_frame"
    host.send({"type": "ping"})
    assert host.wait_message("pong")["version"] == 2
    status, snap = http(server.url, "GET", f"/api/tables/{host.table}")
    assert snap["version"] == 2 and snap["players"][0]["name"] == "Host"


@pytest.mark.parametrize("name", ["\u200d", "\u3164", "\u115f", "\u2800", "\u3164\u3164 \u200d", "\ufeff\u2060"])
def test_names_of_invisible_characters_are_refused(client, name: str) -> None:
    r = client.post("/api/tables", json={"game": "toy", "name": name})
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_name", repr(name)


@pytest.mark.parametrize("taken,twin", [
    ("Anna", "anna"), ("Anna", "\u0410nna"), ("Sam", "ＳＡＭ"), ("민준", "민 준"), ("Bo", "B0"),
])
def test_a_seat_cannot_take_or_mimic_another_seats_name(client, taken: str, twin: str) -> None:
    r = client.post("/api/tables", json={"game": "toy", "name": taken})
    table = r.json["table"]
    j = client.post(f"/api/tables/{table}/players", json={"name": twin})
    assert j.status_code == 409 and j.json["error"]["code"] == "name_taken", (taken, twin, j.json)
    ok = client.post(f"/api/tables/{table}/players", json={"name": "Someone"})
    assert ok.status_code == 201
    tok = ok.json["player"]["token"]
    rename = client.post(f"/api/tables/{table}/actions", headers={"Authorization": f"Bearer {tok}"},
                         json={"action": {"type": "rename", "player": ok.json["player"]["id"], "name": twin},
                               "request_id": f"rn-{taken}"})
    assert rename.status_code == 409 and rename.json["error"]["code"] == "name_taken"


def test_renaming_to_ones_own_name_in_another_case_is_fine(client) -> None:
    host, _a, _b = open_table(client)
    r = host.act("rename", player="p1", name="HOST")
    assert r.status_code == 200, r.json


def test_deep_json_over_the_socket_gets_an_error_frame_and_the_socket_stays(app_server_factory) -> None:
    server = app_server_factory()
    host, a = open_live_table(server.url, joiners=1)
    host.connect()
    assert host.ws is not None
    host.ws.send(DEEP)
    err = host.wait_message("error")
    assert err["error"]["code"] == "too_deep"
    host.send({"type": "ping"})
    assert host.wait_message("pong")["version"] == 2
    assert "Traceback" not in server.logs()


def _junk(rng: random.Random) -> str:
    """A random socket frame: broken JSON, wrong shapes, wrong types, huge or odd values."""
    atoms = [None, True, 0, -1, 2**70, 1.5e308, "", "x" * 300, "\u0000", "\ud7ff", [], {}, "start",
             "undo", "action", "sync", "ping", "add", "rename"]
    def value(depth: int = 0) -> object:
        roll = rng.random()
        if depth > 3 or roll < 0.5:
            return rng.choice(atoms)
        if roll < 0.75:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        keys = ["type", "action", "request_id", "version", "n", "player", "name", "host", "", "x" * 80]
        return {rng.choice(keys): value(depth + 1) for _ in range(rng.randrange(5))}
    kind = rng.random()
    if kind < 0.15:
        return rng.choice(["{", "}", "[1,", "nul", '{"type":', "\x00\x01", "[" * 40, '"\\ud800"'])
    msg = value()
    if kind < 0.7:
        msg = {"type": rng.choice(["action", "sync", "ping", "bogus", 7, None]),
               "action": value(1) if rng.random() < 0.5 else {"type": rng.choice(atoms), "n": value(2)},
               "request_id": rng.choice([None, 5, "", "r" * 100, f"f{rng.random()}"]),
               "version": rng.choice([None, "1", -5, 10**20, 1])}
    return json.dumps(msg)


def test_socket_fuzz_never_breaks_the_socket_or_the_table(app_server_factory) -> None:
    """Random frames from a seated phone: each gets a frame back (an error with a
    code, or a legitimate answer), the socket stays open, no traceback is logged."""
    server = app_server_factory()
    host, a = open_live_table(server.url, joiners=1)
    a.connect()
    assert a.ws is not None
    rng = random.Random(1234)
    for i in range(150):
        frame = _junk(rng)
        a.ws.send(frame)
        time.sleep(0.06)  # under the socket's flood limit: the fuzz is about content
        if i % 10 == 0:
            a.send({"type": "ping"})
            a.wait_message("pong")
    for msg in a.inbox:
        if msg["type"] == "error":
            assert isinstance(msg["error"]["code"], str) and msg["error"]["message"]
    a.send({"type": "ping"})
    assert a.wait_message("pong")
    status, snap = http(server.url, "GET", f"/api/tables/{host.table}", token=host.token)
    assert status == 200 and snap["status"] == "lobby"
    logs = server.logs()
    assert "Traceback" not in logs and "socket handler failed" not in logs


def test_deep_json_to_a_live_server_logs_no_traceback(app_server_factory) -> None:
    server = app_server_factory()
    req = urllib.request.Request(server.url + "/api/tables", data=DEEP.encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(req, timeout=10)
        raise AssertionError("accepted")
    except urllib.error.HTTPError as e:
        assert e.code == 400 and json.loads(e.read())["error"]["code"] == "too_deep"
    assert "Traceback" not in server.logs()
