"""The HTTP contract (docs/api.md) against a real Redis."""

from __future__ import annotations

import re

from tests.server.conftest import open_table
from tests.words import worded


def test_create_returns_ids_code_links_and_host_seat(client) -> None:
    r = client.post("/api/tables", json={"game": "toy", "name": "Mina"})
    assert r.status_code == 201
    body = r.json
    assert len(body["table"]) >= 16  # 128 random bits, URL-safe
    assert re.fullmatch(r"[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}", body["code"])
    assert body["join_url"].endswith(f"/t/{body['table']}")
    assert body["qr_svg"].endswith(f"/api/tables/{body['table']}/qr.svg")
    assert body["player"]["id"] == "p1" and len(body["player"]["token"]) >= 22
    snap = client.get(f"/api/tables/{body['table']}", headers={"Authorization": f"Bearer {body['player']['token']}"}).json
    assert snap["host"] == "p1" and snap["me"] == "p1" and snap["status"] == "lobby"
    # No socket is open for the seat: it is not connected.
    assert snap["players"] == [{"id": "p1", "name": "Mina", "host": True, "connected": False}]
    assert snap["options"] == {"target": 20, "min_players": 2}, "documented defaults filled in"


def test_qr_svg_encodes_the_join_link(client) -> None:
    import io

    import zxingcpp
    from PIL import Image

    body = client.post("/api/tables", json={"game": "toy", "name": "Mina"}).json
    svg = client.get(f"/api/tables/{body['table']}/qr.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    # Decode the same code rendered as PNG by segno (no SVG rasterizer needed).
    import segno

    buf = io.BytesIO()
    segno.make(body["join_url"], error="m").save(buf, kind="png", scale=8)
    decoded = zxingcpp.read_barcodes(Image.open(io.BytesIO(buf.getvalue())))
    assert decoded[0].text == body["join_url"]
    assert body["join_url"].encode() not in svg.data  # the SVG is modules, not text


def test_qr_png_is_the_join_link_a_camera_reads(client) -> None:
    import io

    import zxingcpp
    from PIL import Image

    body = client.post("/api/tables", json={"game": "toy", "name": "Mina"}).json
    r = client.get(f"/api/tables/{body['table']}/qr.png")
    assert r.status_code == 200 and r.mimetype == "image/png"
    image = Image.open(io.BytesIO(r.data))
    assert image.width >= 800, "crisp on a 3x screen at the lobby's 320 px (24 px a module)"
    assert len(r.data) < 4000
    assert [c.text for c in zxingcpp.read_barcodes(image)] == [body["join_url"]]
    assert client.get("/api/tables/nosuchtable0000/qr.png").status_code == 404


def test_code_lookup_names_the_table_and_whether_its_game_started(client) -> None:
    phones = open_table(client, joiners=1)
    snap = phones[0].get().json
    code = snap["code"]
    assert client.get(f"/api/codes/{code}").json == {"table": phones[0].table, "status": "lobby"}
    assert client.get(f"/api/codes/{code.lower()}").json == {"table": phones[0].table, "status": "lobby"}
    assert phones[0].act("start").status_code == 200
    # A late joiner is told the game started (the table page offers the spectator view).
    r = client.get(f"/api/codes/{code}")
    assert r.status_code == 200 and r.json == {"table": phones[0].table, "status": "playing"}
    assert phones[0].get().json["code"] is None, "the code is no longer shown"
    join = client.post(f"/api/tables/{phones[0].table}/players", json={"name": "Late"})
    assert join.status_code == 409 and join.json["error"]["code"] == "game_started"
    assert client.get("/api/codes/ZZZZZZ").json["error"]["code"] == "code_not_found"
    assert client.get("/api/codes/x").status_code == 404


def test_join_lists_seats_in_join_order_and_raises_version(client) -> None:
    host, a, b = open_table(client)
    snap = host.get().json
    assert [p["id"] for p in snap["players"]] == ["p1", "p2", "p3"]
    assert [p["name"] for p in snap["players"]] == ["Host", "P2", "P3"]
    assert snap["version"] == 3, "create=1, each join +1"
    assert a.get().json["me"] == "p2"


def test_spectator_view_has_no_seat(table) -> None:
    host = table[0]
    r = host.client.get(f"/api/tables/{host.table}")
    assert r.status_code == 200 and r.json["me"] is None and r.json["legal"] == []


def test_action_applies_returns_version_and_events(table) -> None:
    host, a, _ = table
    r = host.act("start")
    assert r.status_code == 200 and r.json["events"] == [{"type": "started"}]
    v = r.json["version"]
    r = host.act("add", n=3)
    assert r.json == {"version": v + 1, "events": [{"type": "added", "player": "p1", "n": 3}]}
    snap = a.get().json
    assert snap["version"] == v + 1 and snap["view"]["scores"]["p1"] >= 3
    assert snap["status"] == "playing"
    assert {"type": "add", "n": 1} in snap["legal"], "p2 plays next"


def test_rule_refusal_has_code_and_changes_nothing(table) -> None:
    host, a, _ = table
    host.act("start")
    before = host.get().json
    r = a.act("add", n=1)
    assert r.status_code == 409 and r.json["error"]["code"] == "not_your_turn"
    assert host.get().json == before


def test_retried_request_id_applies_once(table) -> None:
    host, *_ = table
    host.act("start")
    first = host.act("add", request_id="same-id", n=2)
    again = host.act("add", request_id="same-id", n=2)
    assert first.status_code == again.status_code == 200
    assert again.json == first.json
    assert host.get().json["version"] == first.json["version"]


def test_request_id_of_another_seat_is_not_replayed(table) -> None:
    host, a, _ = table
    host.act("start")
    host.act("note", request_id="rid-1", text="x")
    r = a.act("note", request_id="rid-1", text="y")
    assert r.status_code == 409 and r.json["error"]["code"] == "request_id_reused"


def test_stale_version_is_refused(table) -> None:
    host, *_ = table
    v = host.act("start").json["version"]
    r = host.act("add", version=v - 1, n=1)
    assert r.status_code == 409 and r.json["error"]["code"] == "stale_version"
    assert host.act("add", version=v, n=1).status_code == 200


def test_player_field_in_action_is_refused(table) -> None:
    host, a, _ = table
    host.act("start")
    r = a.act("add", n=1, player="p1")
    assert r.status_code == 400 and r.json["error"]["code"] == "invalid_payload"


def test_payload_is_validated_by_schema(table) -> None:
    host, *_ = table
    host.act("start")
    for bad in ({"n": 9}, {"n": "2"}, {}, {"n": 1, "extra": True}):
        r = host.act("add", **bad)
        assert r.status_code == 400 and r.json["error"]["code"] == "invalid_payload", bad
    r = host.act("fly")
    assert r.status_code == 400 and r.json["error"]["code"] == "unknown_action"
    r = host.client.post(f"/api/tables/{host.table}/actions", data="not json", headers=host.auth)
    assert r.status_code == 400 and r.json["error"]["code"] == "invalid_json"
    r = host.client.post(f"/api/tables/{host.table}/actions", json={"action": {"type": "undo"}}, headers=host.auth)
    assert r.json["error"]["code"] == "invalid_payload", "request_id is required"


def test_json_beyond_the_standard_is_refused_and_changes_nothing(table) -> None:
    # The server's parser (orjson) refuses NaN and a lone surrogate, which
    # Python's json module took; an integer past 64 bits reads as a float,
    # which the action's schema refuses.
    host, *_ = table
    host.act("start")
    before = host.get().json
    for raw, code in (('{"action": {"type": "add", "n": NaN}, "request_id": "q1"}', "invalid_json"),
                      ('{"action": {"type": "add", "n": 1}, "request_id": "\\ud800"}', "invalid_json"),
                      ('{"action": {"type": "add", "n": 1' + "0" * 30 + '}, "request_id": "q3"}',
                       "invalid_payload")):
        r = host.client.post(f"/api/tables/{host.table}/actions", data=raw, headers=host.auth,
                             content_type="application/json")
        assert r.status_code == 400 and r.json["error"]["code"] == code, raw
    assert host.get().json == before


def test_host_only_actions(table) -> None:
    host, a, _ = table
    for t, payload in (("start", {}), ("seats", {"order": ["p2", "p1", "p3"]}), ("remove", {"player": "p3"}),
                       ("host", {"player": "p2"})):
        r = a.act(t, **payload)
        assert r.status_code == 403 and r.json["error"]["code"] == "not_host", t
    host.act("start")
    for t in ("undo", "next_round"):
        r = a.act(t)
        assert r.status_code == 403 and r.json["error"]["code"] == "not_host", t


def test_lobby_reorder_rename_remove_transfer(table) -> None:
    host, a, b = table
    assert host.act("seats", order=["p3", "p1", "p2"]).status_code == 200
    assert [p["id"] for p in host.get().json["players"]] == ["p3", "p1", "p2"]
    r = host.act("seats", order=["p1", "p2"])
    assert r.json["error"]["code"] == "bad_order"
    r = host.act("seats", order=["p1", "p1", "p2"])
    assert r.json["error"]["code"] == "bad_order"
    # `from`, the order the host's screen showed: a change elsewhere (this rename)
    # does not refuse the tap; an order changed since does, and changes nothing.
    assert a.act("rename", player="p2", name="Mina").status_code == 200
    assert host.act("seats", order=["p1", "p3", "p2"], **{"from": ["p3", "p1", "p2"]}).status_code == 200
    before = host.get().json
    r = host.act("seats", order=["p3", "p1", "p2"], **{"from": ["p3", "p1", "p2"]})
    assert r.status_code == 409 and r.json["error"]["code"] == "seats_changed"
    after = host.get().json
    assert (after["version"], after["players"]) == (before["version"], before["players"])
    # Only the host reorders, whatever `from` says (a guest learns nothing from it), and a
    # `from` that is not a list of seat ids is refused as any bad payload.
    r = a.act("seats", order=["p2", "p1", "p3"], **{"from": ["p1", "p3", "p2"]})
    assert r.status_code == 403 and r.json["error"]["code"] == "not_host"
    r = host.act("seats", order=["p2", "p1", "p3"], **{"from": "p1,p3,p2"})
    assert r.status_code == 400 and r.json["error"]["code"] == "invalid_payload"
    after = host.get().json
    assert (after["version"], after["players"]) == (before["version"], before["players"])
    assert a.act("rename", player="p2", name="  Bora ").status_code == 200
    assert a.act("rename", player="p3", name="X").json["error"]["code"] == "not_host"
    assert host.act("rename", player="p3", name="Chul").status_code == 200
    names = {p["id"]: p["name"] for p in host.get().json["players"]}
    assert names == {"p1": "Host", "p2": "Bora", "p3": "Chul"}
    assert host.act("remove", player="p1").json["error"]["code"] == "cannot_remove_host"
    assert host.act("remove", player="p3").status_code == 200
    assert b.get().status_code == 401, "a removed seat's token stops working"
    assert host.act("host", player="p2").status_code == 200
    snap = a.get().json
    assert snap["host"] == "p2" and [p["host"] for p in snap["players"]] == [False, True]
    assert host.act("start").json["error"]["code"] == "not_host"
    assert a.act("start").status_code == 200
    assert a.act("seats", order=["p1", "p2"]).json["error"]["code"] == "not_in_lobby"


def test_turn_order_follows_reordered_seats(table) -> None:
    host, a, b = table
    host.act("seats", order=["p3", "p2", "p1"])
    host.act("start")
    assert host.act("add", n=1).json["error"]["code"] == "not_your_turn"
    assert b.act("add", n=1).status_code == 200


def test_player_count_limits(client) -> None:
    host, = open_table(client, joiners=0)
    r = host.act("start")
    assert r.status_code == 409 and r.json["error"]["code"] == "bad_player_count"
    assert "2–8" in r.json["error"]["message"]
    phones = open_table(client, joiners=7)
    r = client.post(f"/api/tables/{phones[0].table}/players", json={"name": "Ninth"})
    assert r.status_code == 409 and r.json["error"]["code"] == "table_full"


def test_join_after_start_is_refused(table) -> None:
    host, *_ = table
    host.act("start")
    r = host.client.post(f"/api/tables/{host.table}/players", json={"name": "Late"})
    assert r.status_code == 409 and r.json["error"]["code"] == "game_started"


def test_bad_names_and_options(client) -> None:
    for name in ("", "   ", "bad\x00name", "rtl\u202eevil", "a" * 201):
        r = client.post("/api/tables", json={"game": "toy", "name": name})
        assert r.status_code == 400, name
    long = client.post("/api/tables", json={"game": "toy", "name": "가" * 200})
    tok = long.json["player"]["token"]
    snap = client.get(f"/api/tables/{long.json['table']}", headers={"Authorization": f"Bearer {tok}"}).json
    assert snap["players"][0]["name"] == "가" * 24, "trimmed to the documented limit"
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467 <img src=x onerror=alert(1)>"
    r = client.post("/api/tables", json={"game": "toy", "name": family})
    assert r.status_code == 201
    r = client.post("/api/tables", json={"game": "chess", "name": "x"})
    assert r.json["error"]["code"] == "unknown_game"
    r = client.post("/api/tables", json={"game": "toy", "name": "x", "options": {"target": 1}})
    assert r.json["error"]["code"] == "bad_options"
    r = client.post("/api/tables", json={"game": "toy", "name": "x", "options": {"colour": 1}})
    assert r.json["error"]["code"] == "bad_options"


def test_unknown_and_expired_tables_are_404(client) -> None:
    for path in ("/api/tables/nosuchtable0000", "/api/tables/nosuchtable0000/history",
                 "/api/tables/nosuchtable0000/qr.svg", "/api/tables/%00"):
        r = client.get(path)
        assert r.status_code == 404 and r.json["error"]["code"] in {"table_not_found", "not_found"}, path
    r = client.post("/api/tables/nosuchtable0000/players", json={"name": "x"})
    assert r.status_code == 404 and r.json["error"]["code"] == "table_not_found"
    r = client.get("/t/nosuchtable0000")
    assert r.status_code == 404 and b"<html" in r.data.lower()


def test_tokens_are_bound_to_their_table_and_seat(client) -> None:
    host, a, _ = open_table(client)
    other_host, _ = open_table(client, joiners=1)
    cases = {
        "foreign table": other_host.token,
        "garbage": "not-a-token",
        "empty-ish": "\u00e9\u00e9",
    }
    for what, token in cases.items():
        h = {"Authorization": f"Bearer {token}"}
        for method, path, body in (
            ("get", f"/api/tables/{host.table}", None),
            ("get", f"/api/tables/{host.table}/history", None),
            ("post", f"/api/tables/{host.table}/actions", {"action": {"type": "start"}, "request_id": "x"}),
            ("post", f"/api/tables/{host.table}/players/p2/rejoin", {}),
        ):
            r = getattr(client, method)(path, json=body, headers=h)
            assert r.status_code == 401 and r.json["error"]["code"] == "bad_token", (what, path)
    r = client.get(f"/api/tables/{host.table}", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401
    r = client.post(f"/api/tables/{host.table}/actions", json={"action": {"type": "start"}, "request_id": "x"})
    assert r.status_code == 401, "no token, no action"
    # Another seat's token acts as that seat, never as the seat named in the message.
    host.act("start")
    r = a.act("add", n=1)
    assert r.json["error"]["code"] == "not_your_turn"


def test_rejoin_replaces_the_seat_token(table) -> None:
    host, a, _ = table
    r = host.client.post(f"/api/tables/{host.table}/players/p2/rejoin", headers=host.auth, json={})
    assert r.status_code == 200
    body = r.json
    assert body["player"] == {"id": "p2"}, "a code, never a token"
    assert body["rejoin_url"].endswith(f"#claim={body['claim']}") and body["expires_in"] == 900
    assert body["qr_svg"].startswith("<svg")
    assert a.get().status_code == 200, "the old token works until the code is redeemed"
    c = host.client.post(f"/api/tables/{host.table}/claim", json={"claim": body["claim"]})
    assert c.status_code == 201 and c.json["player"]["id"] == "p2"
    assert a.get().status_code == 401, "the old token stops working"
    a.token = c.json["player"]["token"]
    assert a.get().json["me"] == "p2"
    r = a.client.post(f"/api/tables/{a.table}/players/p3/rejoin", headers=a.auth, json={})
    assert r.status_code == 403 and r.json["error"]["code"] == "not_host"


def test_fixed_random_fields_refused_when_off(redis_url) -> None:
    from server import create_app
    from tests.toy_engine import TOY

    client = create_app({"REDIS_URL": redis_url, "EXTRA_ENGINES": [TOY]}).test_client()
    r = client.post("/api/tables", json={"game": "toy", "name": "x", "options": {"start": 3}})
    assert r.status_code == 400 and r.json["error"]["code"] == "fixed_random_off"
    host, _, _ = open_table(client)
    host.act("start")
    r = host.act("roll", die=6)
    assert r.status_code == 400 and r.json["error"]["code"] == "fixed_random_off"
    r = host.act("roll")
    assert r.status_code == 200 and 1 <= r.json["events"][0]["n"] <= 6, "the server drew the die"


def test_random_draw_is_logged_and_replayed_by_undo(table) -> None:
    host, a, _ = table
    host.act("start")
    host.act("roll", die=5)
    a.act("roll", die=2)
    before_undo = host.get().json["view"]["scores"]
    r = host.act("undo")
    assert r.status_code == 200 and r.json["events"][0]["type"] == "undone"
    scores = host.get().json["view"]["scores"]
    assert scores["p1"] == before_undo["p1"] and scores["p2"] == before_undo["p2"] - 2
    assert a.act("roll", die=4).status_code == 200, "p2's turn again after undo"


def test_undo_walks_back_and_stops_at_start(table) -> None:
    host, a, _ = table
    start = host.act("start").json["version"]
    host.act("add", n=1)
    a.act("add", n=2)
    assert host.act("undo").status_code == 200
    assert host.act("undo").status_code == 200
    snap = host.get().json
    assert snap["version"] == start + 4
    assert all(v == snap["view"]["scores"]["p1"] for v in snap["view"]["scores"].values())
    r = host.act("undo")
    assert r.status_code == 409 and r.json["error"]["code"] == "nothing_to_undo"
    assert {"type": "undo"} not in snap["legal"]


def test_the_hosts_snapshot_says_what_undo_takes_back_or_why_nothing(client) -> None:
    host, *others = open_table(client, joiners=2, game="kingup", options={"playMode": "score_only"})
    assert "undo" not in host.get().json, "the lobby has nothing to undo"
    host.act("start")
    assert host.get().json["undo"] == {"target": None, "sealed": False}
    goal = host.act("goal", characters=list("DABCIL")).json["version"]
    host.act("rename", player="p2", name="Bora")  # a platform change: undo passes over it
    assert host.get().json["undo"] == {"target": goal, "sealed": False}
    assert all("undo" not in p.get().json for p in others), "the host's alone"
    board = {"D": "throne", "A": 5, "G": 5, "K": 5, "B": 4, "H": 4, "C": 3, "E": 3, "M": 3, "I": 2, "J": 1,
             "L": 0, "F": "eliminated"}
    goals = {"p2": list("GKHFJL"), "p3": list("AGMEJF")}  # p1's is recorded
    r = host.act("score_round", board=board, goals=goals)
    assert r.status_code == 200, r.json
    # The scores are revealed: undo stops there, and the snapshot says so.
    snap = host.get().json
    assert snap["undo"] == {"target": None, "sealed": True} and {"type": "undo"} not in snap["legal"]
    r = host.act("undo")
    assert r.status_code == 409 and r.json["error"]["code"] == "undo_sealed"
    nxt = host.act("next_round").json["version"]
    assert host.get().json["undo"] == {"target": nxt, "sealed": False}


def test_undo_reopens_a_finished_game(client) -> None:
    host, a = open_table(client, joiners=1, options={"target": 2})
    host.act("start")
    host.act("add", n=3)
    assert host.get().json["status"] == "over"
    assert host.get().json["view"]["result"] == {"winners": ["p1"]}
    host.act("undo")
    assert host.get().json["status"] == "playing"


def test_history_in_words_by_round(table) -> None:
    host, a, _ = table
    host.act("start")
    host.act("add", n=2)
    host.act("undo")
    h = worded(host.client.get(f"/api/tables/{host.table}/history").json, "en")
    rounds = {r["round"]: r["entries"] for r in h["rounds"]}
    assert [e["text"] for e in rounds[0]] == ["Host created the table.", "P2 joined.", "P3 joined."]
    texts = [(e["text"], e["undone"]) for e in rounds[1]]
    assert texts == [("The game started.", False), ("Host +2", True), ("Host undid the last action.", False)]
    ko = worded(host.client.get(f"/api/tables/{host.table}/history").json, "ko")
    assert ko["rounds"][0]["entries"][1]["text"] == "P2님이 참가했습니다."


def test_secrets_only_reach_their_seat(table) -> None:
    host, a, b = table
    host.act("start")
    a.act("note", text="my secret")
    assert a.get().json["view"]["my_note"] == "my secret"
    for other in (host, b):
        assert "my secret" not in other.get().get_data(as_text=True)
    assert "my secret" not in host.client.get(f"/api/tables/{host.table}").get_data(as_text=True)
    hist = host.client.get(f"/api/tables/{host.table}/history").get_data(as_text=True)
    assert "my secret" not in hist


def test_every_change_raises_version_by_one(table) -> None:
    host, a, _ = table
    versions = [host.get().json["version"]]
    for r in (host.act("rename", player="p1", name="H"), host.act("seats", order=["p1", "p3", "p2"]),
              host.act("start"), host.act("add", n=1)):
        versions.append(r.json["version"])
    assert versions == list(range(versions[0], versions[0] + 5))


def test_next_round_is_a_host_game_action(table) -> None:
    host, a, b = table
    host.act("start")
    assert host.act("next_round").json["error"]["code"] == "round_not_over"
    for p in (host, a, b):
        p.act("add", n=1)
    assert host.act("next_round").status_code == 200
    assert host.get().json["round"] == 2


def test_games_and_openapi(client) -> None:
    games = client.get("/api/games").json["games"]
    toy = next(g for g in games if g["name"] == "toy")
    assert toy["min_players"] == 2 and toy["max_players"] == 8 and "add" in toy["actions"]
    doc = client.get("/api/openapi.json").json
    assert doc["openapi"].startswith("3.1")
    for path in ("/api/tables", "/api/codes/{code}", "/api/tables/{table_id}",
                 "/api/tables/{table_id}/actions", "/api/tables/{table_id}/players", "/healthz"):
        assert path in doc["paths"]
    titles = {v["title"] for v in doc["paths"]["/api/tables/{table_id}/actions"]["post"]["requestBody"][
        "content"]["application/json"]["schema"]["properties"]["action"]["anyOf"]}
    assert {"platform.start", "platform.undo", "toy.add", "toy.roll"} <= titles


def test_health(client) -> None:
    assert client.get("/healthz").json["ok"] is True


def test_host_actions_are_listed_for_the_host_only(table) -> None:
    host, a, b = table
    host.act("start")
    for p in (host, a, b):
        p.act("add", n=1)
    assert {"type": "next_round"} in host.get().json["legal"]
    assert all(x["type"] != "next_round" for x in a.get().json["legal"])


def test_analysis_endpoint(client) -> None:
    host, a, b = open_table(client, game="camelup")
    r = host.client.get(f"/api/tables/{host.table}/analysis", headers=host.auth)
    assert r.status_code == 200 and r.json["analysis"] is None, "nothing to analyse in the lobby"
    host.act("start")
    r = a.client.get(f"/api/tables/{a.table}/analysis", headers=a.auth)
    leg = r.json["analysis"]["leg"]
    assert leg["denominator"] == 5_598_720
    assert sum(leg["ranks"]["blue"]) == leg["denominator"]
    spectator = host.client.get(f"/api/tables/{host.table}/analysis").json
    assert spectator["analysis"]["leg"] == leg, "public information: the same for everyone"
    toy = open_table(client)[0]
    toy.act("start")
    assert toy.client.get(f"/api/tables/{toy.table}/analysis").json["analysis"] is None


def test_analysis_is_computed_once_per_version_for_all_phones(client, monkeypatch) -> None:
    import threading

    from engines import registry

    engine = registry.get("camelup")
    calls: list[str | None] = []
    real = engine.analysis

    def counting(state, player):
        calls.append(player)
        return real(state, player)

    monkeypatch.setattr(engine, "analysis", counting)
    phones = open_table(client, joiners=4, game="camelup")
    phones[0].act("start")
    results = []
    threads = [threading.Thread(target=lambda p=p: results.append(
        p.client.get(f"/api/tables/{p.table}/analysis", headers=p.auth).json)) for p in phones]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and calls == [None], "no tile on the board: one shared computation"
    assert all(r == results[0] for r in results)
