"""GET /api/tables/<id>/result, the BG Stats link it carries, and play_again."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from server.service import results
from tests.server.conftest import Phone, open_table
from tests.words import texts, worded

EX3_BOARD = {"throne": "D", 5: "AGK", 4: "BH", 3: "CEM", 2: "I", 1: "J", 0: "L", "eliminated": "F"}
EX3_GOALS = {"p1": "DABCIL", "p2": "GKHFJL", "p3": "AGMEJF", "p4": "FLJICE"}
# King Up! Example 5 (rules): p1 and p3 tie on 59; p1 has more survivors.
EX5_ROUNDS = [
    {"p1": "DACILF", "p2": "FLJICE", "p3": "DAGCIL", "p4": "FLJICE"},  # 20, 9, 25, 9
    {"p1": "ABCEFL", "p2": "FLJICE", "p3": "AGMEJF", "p4": "FLJICE"},  # 15, 9, 17, 9
    {**EX3_GOALS, "p2": "FLJICE"},  # 24, 9, 17, 9
]


def _board(layout: dict[Any, str]) -> dict[str, Any]:
    return {c: where for where, letters in layout.items() for c in letters}


def play_kingup(host: Phone, rounds: list[dict[str, str]] = EX5_ROUNDS) -> None:
    for i, goals in enumerate(rounds):
        if i:
            assert host.act("next_round").status_code == 200
        r = host.act("score_round", board=_board(EX3_BOARD), goals={p: list(g) for p, g in goals.items()})
        assert r.status_code == 200, r.json


def kingup_table(client: Any, **options: Any) -> list[Phone]:
    return open_table(client, joiners=3, game="kingup", options={"playMode": "score_only", **options})


def get_result(phone: Phone, **args: Any) -> Any:
    return phone.client.get(f"/api/tables/{phone.table}/result", query_string=args, headers=phone.auth)


def decode(link: str) -> dict[str, Any]:
    parts = urlsplit(link)
    assert (parts.netloc, parts.path) == ("app.bgstatsapp.com", "/createPlay.html")
    (data,) = parse_qs(parts.query)["data"]
    return json.loads(data)


def test_result_is_409_not_over_until_the_end(client) -> None:
    phones = kingup_table(client)
    assert get_result(phones[0]).status_code == 409
    phones[0].act("start")
    r = get_result(phones[1])
    assert r.status_code == 409 and r.json["error"]["code"] == "not_over"


def test_kingup_result_follows_the_tie_break(client) -> None:
    phones = kingup_table(client)
    host = phones[0]
    host.act("start")
    play_kingup(host)
    r = get_result(phones[2])
    assert r.status_code == 200, r.json
    res = r.json
    assert res["game"] == "kingup" and res["duration_min"] >= 0
    assert [(p["id"], p["score"], p["rank"], p["winner"]) for p in res["players"]] == [
        ("p1", 59, 1, True), ("p3", 59, 2, False), ("p2", 27, 3, False), ("p4", 27, 3, False)]
    assert [p["name"] for p in res["players"]] == ["Host", "P3", "P2", "P4"]
    assert [r_["points"]["p3"] for r_ in res["rounds"]] == [25, 17, 17]
    assert res["details"]["tie_break"]["tied"] == ["p1", "p3"]
    assert res["players"][0]["start_player"] is True
    # Spectators may read it too: it holds only what the end of the game reveals.
    assert client.get(f"/api/tables/{host.table}/result").status_code == 200


def test_kingup_shared_victory_without_tie_break(client) -> None:
    phones = kingup_table(client, tieBreak="none")
    phones[0].act("start")
    play_kingup(phones[0])
    players = {p["id"]: p for p in get_result(phones[0]).json["players"]}
    assert players["p1"]["winner"] and players["p3"]["winner"]
    assert players["p1"]["rank"] == players["p3"]["rank"] == 1


def test_bgstats_link_carries_the_same_figures(client) -> None:
    phones = kingup_table(client)
    phones[0].act("start")
    play_kingup(phones[0])
    res = get_result(phones[1], tz="540").json  # a phone in Seoul (UTC+9)
    assert res["bgstats"].startswith("bgstats://app.bgstatsapp.com/createPlay.html?data=")
    assert res["bgstats_web"].startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    play = decode(res["bgstats"])
    assert play == decode(res["bgstats_web"])
    assert play["sourceName"] == "Tablemate" and play["sourcePlayId"].startswith(phones[0].table)
    assert play["game"]["name"] == "King Up!" and play["game"]["highestWins"] is True
    assert "bggId" not in play["game"]  # none confirmed (docs/results.md)
    assert play["durationMin"] == res["duration_min"]
    started = res["started_at"]  # UTC; BG Stats gets the phone's local time
    hour = (int(started[11:13]) + 9) % 24
    assert int(play["playDate"][11:13]) == hour and len(play["playDate"]) == 19
    assert [(p["name"], p["score"], p["rank"], p["winner"], p["startPlayer"]) for p in play["players"]] == [
        (p["name"], p["score"], p["rank"], p["winner"], p["start_player"]) for p in res["players"]]
    assert sum(p["winner"] for p in play["players"]) == 1 and play["players"][0]["startPlayer"]


def test_camelup_result_through_the_api(client) -> None:
    phones = open_table(client, joiners=2, game="camelup")
    by_id = {p.id: p for p in phones}
    phones[0].act("start")
    for _ in range(400):
        snap = phones[0].get().json
        if snap["status"] == "over":
            break
        turn = next(p for p in phones if any(a["type"] == "pyramid" for a in p.get().json["legal"]))
        assert turn.act("pyramid").status_code == 200
    snap = phones[0].get().json
    assert snap["status"] == "over"
    res = get_result(by_id["p2"]).json
    money = {p["id"]: p["money"] for p in snap["players"]}
    assert {p["id"]: p["score"] for p in res["players"]} == money
    best = max(money.values())
    assert {p["id"] for p in res["players"] if p["winner"]} == {p for p, m in money.items() if m == best}
    assert all(p["rank"] == 1 for p in res["players"] if p["winner"])
    legs = [r for r in res["rounds"] if "leg" in r]
    assert legs and [r["leg"] for r in legs] == list(range(1, len(legs) + 1))
    assert res["rounds"][-1]["final"] is True and res["rounds"][-1]["money"] == money
    play = decode(res["bgstats"])
    assert play["game"] == {"name": "Camel Up (Second Edition)", "sourceGameId": "camelup",
                            "highestWins": True, "noPoints": False, "bggId": 260605}
    assert {p["name"]: p["score"] for p in play["players"]} == {
        p["name"]: money[p["id"]] for p in res["players"]}


def test_countup_result_through_the_api(client) -> None:
    # Count Up Example 7: four rounds, B wins on the total.
    phones = open_table(client, joiners=2, game="countup", options={"restrictionSource": "manual"})
    a, b, c = phones
    a.act("start")
    sheets = {a: [1, 12, 24, 34, 41], b: [3, 15, 32, 35, 43], c: [11, 21, 33, 36, 46]}
    for r in range(4):
        if r:
            assert a.act("next_round").status_code == 200
        assert a.act("restriction", digits=[7, 8, 9]).status_code == 200
        for phone, numbers in sheets.items():
            assert phone.act("numbers", numbers=numbers).status_code == 200
        assert a.act("call", until="end").status_code == 200
    res = get_result(c).json
    assert [(p["id"], p["score"], p["rank"], p["winner"]) for p in res["players"]] == [
        ("p2", 76, 1, True), ("p1", 64, 2, False), ("p3", 56, 3, False)]
    assert res["details"]["ended_by"] == "last_round" and len(res["rounds"]) == 4
    assert all(r_["end"] in ("max", "marker20") for r_ in res["rounds"])


def test_openapi_lists_the_result(client) -> None:
    doc = client.get("/api/openapi.json").json
    op = doc["paths"]["/api/tables/{table_id}/result"]["get"]
    assert "409" in op["responses"] and "Result" in doc["components"]["schemas"]


# -- play again ------------------------------------------------------------------


def test_play_again_keeps_every_seat_and_confines_undo_to_the_new_game(client) -> None:
    phones = kingup_table(client)
    host = phones[0]
    host.act("start")
    play_kingup(host)
    assert {"type": "play_again"} in host.get().json["legal"]
    assert {"type": "play_again"} not in phones[1].get().json["legal"]
    r = phones[1].act("play_again")
    assert r.status_code == 403 and r.json["error"]["code"] == "not_host"
    assert host.act("play_again").status_code == 200
    for phone in phones:  # every token still opens its seat
        snap = phone.get().json
        assert (snap["status"], snap["me"], snap["round"]) == ("lobby", phone.id, 0)
        assert [p["id"] for p in snap["players"]] == ["p1", "p2", "p3", "p4"]
    assert get_result(host).status_code == 409  # the next game has not ended
    r = host.act("play_again")
    assert r.status_code == 409 and r.json["error"]["code"] == "not_over"
    assert host.act("start").status_code == 200
    # An action of the new game, undone: the state is the new game's start,
    # not a replay of the first game's actions on top of it.
    fresh = host.get().json["view"]
    assert host.act("goal", characters=list(EX3_GOALS["p1"])).status_code == 200
    assert host.act("undo").status_code == 200
    snap = host.get().json
    assert snap["status"] == "playing" and snap["round"] == 1 and snap["view"] == fresh
    # The second game's result is its own.
    play_kingup(host, [EX5_ROUNDS[2]] * 3)
    res = get_result(phones[3]).json
    assert {p["id"]: p["score"] for p in res["players"]} == {"p1": 72, "p2": 27, "p3": 51, "p4": 27}
    assert len(res["rounds"]) == 3
    assert decode(res["bgstats"])["sourcePlayId"] != ""
    history = client.get(f"/api/tables/{host.table}/history", headers=host.auth).json
    assert any("new game" in t for t in texts(history, "en"))


def test_play_again_reopens_the_lobby_under_its_join_code(app, client) -> None:
    phones = kingup_table(client)
    host = phones[0]
    code = host.get().json["code"]
    host.act("start")
    assert host.get().json["code"] is None
    # During the game the code still names the table: a late joiner learns it started.
    assert client.get(f"/api/codes/{code}").json["status"] == "playing"
    play_kingup(host)
    assert host.act("play_again").status_code == 200
    assert [p.get().json["code"] for p in phones] == [code] * 4
    assert client.get(f"/api/codes/{code}").json == {"table": host.table, "status": "lobby"}
    # The code's key outlives the table's document (a commit cannot refresh
    # it: on a cluster it is on another slot), and every lookup refreshes it.
    store = app.extensions["tablemate"].tables.store
    assert store.r.ttl(f"tm:code:{code}") > store.r.ttl(f"tm:{{{host.table}}}:doc")
    assert host.act("start").status_code == 200
    store.r.expire(f"tm:code:{code}", 5)
    assert client.get(f"/api/codes/{code}").json["status"] == "playing"
    assert store.r.ttl(f"tm:code:{code}") > 60
    play_kingup(host, [EX5_ROUNDS[2]] * 3)
    assert host.act("play_again").status_code == 200
    assert host.get().json["code"] == code


def test_each_game_after_play_again_has_its_own_history_groups(client) -> None:
    phones = kingup_table(client)
    host = phones[0]
    host.act("start")
    play_kingup(host)
    one = worded(client.get(f"/api/tables/{host.table}/history").json, "en")
    assert [(r["game"], r["round"], r["label"]) for r in one["rounds"]] == [
        (1, 0, "Before the first round"), (1, 1, "Round 1"), (1, 2, "Round 2"), (1, 3, "Round 3")]
    assert host.act("play_again").status_code == 200
    assert host.act("start").status_code == 200
    play_kingup(host, [EX5_ROUNDS[2]])
    for lang, words in (("en", ("Game {g} · Round {r}", "Game 2 · Before the first round")),
                        ("ko", ("{g}번째 게임 · {r}라운드", "2번째 게임 · 첫 라운드 전"))):
        history = worded(client.get(f"/api/tables/{host.table}/history").json, lang)
        groups = [(r["game"], r["round"]) for r in history["rounds"]]
        assert groups == [(1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1)]
        labels = {(r["game"], r["round"]): r["label"] for r in history["rounds"]}
        assert labels[1, 2] == words[0].format(g=1, r=2) and labels[2, 1] == words[0].format(g=2, r=1)
        assert labels[2, 0] == words[1]
        # "A new game" opens the second game's group; its first round holds only its own lines.
        second = history["rounds"][-2:]
        assert "new game" in second[0]["entries"][0]["text"] or "새 게임" in second[0]["entries"][0]["text"]
        first_round_v = {e["version"] for r in history["rounds"] if r["game"] == 1 for e in r["entries"]}
        assert all(e["version"] > max(first_round_v) for e in second[1]["entries"])
    # A page that starts after the second game's start still knows which game it shows.
    last = client.get(f"/api/tables/{host.table}/history?limit=1").json
    assert [(r["game"], r["round"]) for r in last["rounds"]] == [(2, 1)]


def test_result_replays_only_the_current_game() -> None:
    doc: Any = {"start": {"players": [], "options": {}, "v": 10}}
    log: Any = [{"v": v, "kind": k, "action": {"type": t, **extra}}
                for v, k, t, extra in [(5, "game", "move", {}), (10, "platform", "start", {}),
                                       (11, "game", "move", {}), (12, "game", "move", {}),
                                       (13, "platform", "undo", {"target": 12})]]
    assert [e["v"] for e in results.game_entries(doc, log)] == [11]


def test_a_hostile_tz_is_ignored_not_a_500(client) -> None:
    r = client.post("/api/tables", json={"game": "toy", "name": "Mina"})
    table = r.json["table"]
    for tz in ("³", "٣٣", "-", "99999", "1e3", "+60"):
        got = client.get(f"/api/tables/{table}/result?tz={tz}")
        assert got.status_code == 409 and got.json["error"]["code"] == "not_over", tz
