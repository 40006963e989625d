"""Every platform change is one record (``server/service/platform_actions.py``)
with every part: a valid payload schema, a handler, a budget, its history
strings in both languages; and every reader (the pipeline, OpenAPI, the
games list, the budget, the history) reads the records, so adding an action
touches one place."""

from __future__ import annotations

import itertools
from typing import Any, get_args

import jsonschema_rs
import pytest

from engines import registry
from server.http import openapi
from server.model import LogEntry
from server.service import pipeline, platform_actions
from server.service.platform_actions import ACTIONS, LOGGED, Budget, text_keys, text_parts
from tests.server.service.test_results import EX5_ROUNDS, kingup_table, play_kingup
from tests.web.test_strings import LANGS, platform_strings
from tests.words import say_both, worded

ALL = {**ACTIONS, **LOGGED}


def entry(atype: str, by: str = "p1", action: dict[str, Any] | None = None,
          event: dict[str, Any] | None = None) -> LogEntry:
    return {"v": 2, "by": by, "round": 0, "kind": "platform", "at": 0.0,
            "action": {"type": atype, **(action or {})}, "events": [event] if event is not None else []}


#: Every variant of every line: the entries whose parts use each key.
VARIANTS: list[LogEntry] = [
    *(entry(t) for t in ALL),
    entry("join", action={"phone": False, "name": "Bo"}),
    entry("undo", event={"type": "undone", "kept": True, "reopened": "p2"}),
    entry("phoneless", action={"player": "p1"}, event={"type": "phoneless", "paused": True}),
    entry("phoneless", action={"player": "p2"}, event={"type": "phoneless", "paused": True}),
    entry("claim", event={"type": "claimed", "sealed": True}),
    *(entry("reminder", action={"seconds": s}) for s in (0, 30, 60, 90)),
    entry("proxies", action={"who": "all"}),
]


def test_action_and_logged_types_are_apart() -> None:
    assert not set(ACTIONS) & set(LOGGED)


@pytest.mark.parametrize("atype", list(ACTIONS))
def test_every_action_has_a_schema_and_a_handler(atype: str) -> None:
    rec = ACTIONS[atype]
    jsonschema_rs.meta.validate(rec.schema)
    assert rec.schema.get("additionalProperties") is False
    assert callable(rec.handler)
    assert platform_actions.HANDLERS[atype] is rec.handler
    assert pipeline.HANDLERS is platform_actions.HANDLERS


@pytest.mark.parametrize("atype", list(ALL))
def test_every_record_has_a_budget_and_its_strings(atype: str) -> None:
    rec = ALL[atype]
    assert rec.budget in get_args(Budget)
    kinds = {"chatter": pipeline.CHATTER, "free": pipeline.FREE, "period": pipeline.NEW_PERIOD}
    for kind, types in kinds.items():
        assert (atype in types) == (rec.budget == kind), kind
    strings = platform_strings()
    if rec.text is None:
        assert text_parts(entry(atype), {}) is None
        return
    for key in text_keys(atype):
        assert all(key in strings[lang] for lang in LANGS), key


def test_every_line_uses_only_its_records_keys_and_fills_every_field() -> None:
    names = {"p1": "Mina", "p2": "Bo"}
    lines = []
    for e in VARIANTS:
        parts = text_parts(e, names)
        if parts is None:
            continue
        atype = e["action"]["type"]
        for key, _ in parts:
            assert key in text_keys(atype), (atype, key)
        lines.append([{"key": k, "params": p} for k, p in parts])
    # As the phones word them (web/history.js), in both languages.
    for lang, said in say_both(lines).items():
        for line in said:
            assert "{" not in line and line.strip(), (lang, line)


def test_openapi_and_the_games_list_name_every_action() -> None:
    doc = openapi.document([e for n in registry.names() if (e := registry.get(n)) is not None])
    variants = doc["paths"]["/api/tables/{table_id}/actions"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["properties"]["action"]["anyOf"]
    titles = {v["title"] for v in variants}
    assert {f"platform.{t}" for t in ACTIONS} <= titles
    games = doc["paths"]["/api/games"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    listed = games["properties"]["games"]["items"]["properties"]["platform_actions"]["items"]["enum"]
    assert listed == list(ACTIONS)



def test_every_line_travels_as_keys_the_phone_words(client) -> None:
    """Every line, the platform's and the game's, is string keys and values
    (``parts``), the same whatever language is asked for: the phone words
    them (``web/history.js``), and the server sends no words of its own."""
    host = kingup_table(client)[0]
    assert host.act("rename", player="p2", name="Bo").status_code == 200
    assert host.act("start").status_code == 200
    play_kingup(host, EX5_ROUNDS[:1])
    pages = [host.client.get(f"/api/tables/{host.table}/history{q}", headers=host.auth).json
             for q in ("", "?lang=ko", "?lang=en")]
    assert pages[0] == pages[1] == pages[2]
    entries = [e for g in pages[0]["rounds"] for e in g["entries"]]
    assert all("text" not in e and e["parts"] for e in entries)
    assert "label" not in pages[0]["rounds"][0]
    assert any(p["key"].startswith("kingup.history.") for e in entries for p in e["parts"])
    assert {p["key"] for e in entries for p in e["parts"]} >= {
        "history.create", "history.join", "history.rename", "history.start"}
    renamed = next(e for e in entries if e["parts"][0]["key"] == "history.rename")
    assert renamed["parts"][0]["params"]["name"] == "Bo"
    said = {lang: [e["text"] for g in worded(pages[0], lang)["rounds"] for e in g["entries"]] for lang in LANGS}
    assert "P2 is now Bo." in said["en"] and "P2 → Bo 이름 변경" in said["ko"], said


def _offered_before(doc: dict[str, Any], seat: dict[str, Any] | None, host: bool, sealed: bool) -> list[str]:
    """The snapshot's hand-written offers before the records (issue 40)."""
    out = []
    if sealed and seat is not None and "pin" in seat:
        out.append("unlock")
    if seat is not None and seat.get("back") and not sealed:
        out.append("resume")
    if host:
        if doc["status"] == "lobby":
            out.append("seats")
            if doc["min_players"] <= len(doc["seats"]) <= doc["max_players"]:
                out.append("start")
        elif doc["undoable"]:
            out.append("undo")
        if doc["status"] == "over":
            out.append("play_again")
    return out


def test_the_records_offer_what_the_snapshot_offered() -> None:
    for status, undoable, n, host, sealed, pin, back, seated in itertools.product(
            ("lobby", "playing", "over"), ([], [5]), (1, 2, 9), *[(False, True)] * 5):
        seats = [{"id": f"p{i}", "name": f"P{i}"} for i in range(1, n + 1)]
        doc: Any = {"status": status, "undoable": undoable, "seats": seats, "min_players": 2, "max_players": 8}
        seat: Any = {**seats[0], **({"pin": {}} if pin else {}), **({"back": True} if back else {})} if seated else None
        got = [a["type"] for a in platform_actions.offers(platform_actions.Seen(doc, seat, host, sealed))]
        assert got == _offered_before(doc, seat, host, sealed)
