"""The OpenAPI 3.1 document, built from the very schemas the server enforces."""

from __future__ import annotations

from typing import Any

from engines.base import Engine
from server.service import history, platform_actions, schemas

ERROR = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}

PHONELESS_SEAT = {
    "type": "object",
    "description": 'A seat without a phone ("phone": false, host\'s token): an id, no token.',
    "properties": {"id": {"type": "string"}},
    "required": ["id"],
    "additionalProperties": False,
}

PLAYER_TOKEN = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "token": {"type": "string"}},
    "required": ["id", "token"],
}

SNAPSHOT = {
    "type": "object",
    "properties": {
        "table": {"type": "string"}, "game": {"type": "string"},
        "code": {"type": ["string", "null"]}, "version": {"type": "integer"},
        "status": {"enum": ["lobby", "playing", "over"]}, "host": {"type": "string"},
        "me": {"type": ["string", "null"]}, "options": {"type": "object"},
        "min_players": {"type": "integer"}, "max_players": {"type": "integer"},
        "round": {"type": "integer"},
        "players": {"type": "array", "items": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "host": {"type": "boolean"},
                           "connected": {"type": "boolean"},
                           "phone": {"const": False, "description": "Present for a seat without a phone."},
                           "paused": {"const": True, "description": (
                               "A seat without a phone whose own phone kept its token: the host can hand "
                               "the seat back to it (`phone_back`).")}},
            "required": ["id", "name", "host"],
        }},
        "view": {"type": "object"},
        "legal": {"type": "array", "items": {"type": "object"}},
        "proxies": {"type": "object", "description": (
            "Per seat without a phone that `me` may act for (`as`), what is waiting to be entered "
            "for it: its legal templates, never its view."),
            "additionalProperties": {"type": "array", "items": {"type": "object"}}},
        "proxies_who": {"enum": ["host", "all"],
                        "description": "Who may act for seats without a phone (platform action `proxies`)."},
        "undo": {"type": "object", "description": (
            "The host's, once a game has started: the version of the game action `undo` takes back "
            "(`target`, null when none), and whether a reveal sealed everything before it (`sealed`)."),
            "properties": {"target": {"type": ["integer", "null"]}, "sealed": {"type": "boolean"}},
            "required": ["target", "sealed"]},
        "paused": {"enum": ["phoneless", "handed_back"], "description": (
            "`me`'s seat is off its phone: the host enters for it (`phoneless`), or handed it back and "
            "its owner has yet to confirm here (`handed_back`: `legal` holds `resume`). `view` is the "
            "spectator's meanwhile.")},
        "waiting_since": {"type": "object", "additionalProperties": {"type": "number"}, "description": (
            "While a game is on: per seat the game waits for (`view.waiting`), since when (epoch seconds).")},
        "now": {"type": "number", "description": (
            "The server's clock when this snapshot was built (epoch seconds), beside `waiting_since`.")},
        "reminder": {"type": "integer", "description": (
            "The host's reminder: after this many seconds of waiting for a seat its phone rings (0: off).")},
        "host_away": {"type": "string", "description": (
            "The host's seat while its phone has been away and a stand-in (`host`) holds its powers; "
            "absent when the host holds them (docs/api.md, \"When the host's phone dies\").")},
        "evening": {"type": "object", "description": (
            "In the lobby after `play_again`: which game of the table comes next and who set it up."),
            "properties": {"game": {"type": "integer"}, "by": {"type": "string"}}, "required": ["game", "by"]},
        "step_in": {"type": "object", "additionalProperties": {"type": "number"}, "description": (
            "While a game is on: per seat the game waits for, from when (epoch seconds) the host may go on "
            "without it (`skip`); a seat choosing again after an undo has none.")},
        "held": {"type": "array", "items": {"type": "object"}, "description": (
            "The host's: `skip` templates the rules accept but the wait does not allow yet (from `step_in`).")},
        "reopened": {"type": "array", "items": {"type": "string"}, "description": (
            "Seats whose sealed choice an undo took back: they choose again on their own phone only.")},
        "step": {"type": "object", "description": (
            "The host's step for another seat made at this version (`skip`, `phoneless`, `phone_back`, "
            "`as`, `undo`), for every phone to announce."),
            "properties": {"v": {"type": "integer"}, "type": {"type": "string"}, "seat": {"type": "string"},
                           "by": {"type": "string"}},
            "required": ["v", "type", "seat", "by"]},
    },
    "required": ["table", "game", "version", "status", "host", "me", "players", "view", "legal"],
}


RESULT = {
    "type": "object",
    "description": "A finished game's result; figures per game in docs/results.md.",
    "properties": {
        "table": {"type": "string"}, "game": {"type": "string"}, "version": {"type": "integer"},
        "started_at": {"type": "string", "format": "date-time"},
        "finished_at": {"type": "string", "format": "date-time"},
        "duration_min": {"type": "integer", "minimum": 0},
        "players": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string"}, "name": {"type": "string"},
                "score": {"type": ["integer", "null"], "description": "The game's own final figure."},
                "rank": {"type": ["integer", "null"], "description": "Ties share a rank."},
                "winner": {"type": "boolean", "description": "The rules' tie-breaks decide."},
                "start_player": {"type": "boolean"},
            },
            "required": ["id", "name", "score", "rank", "winner", "start_player"],
        }},
        "rounds": {"type": "array", "items": {"type": "object"}},
        "details": {"type": "object"},
        "bgstats": {"type": "string", "description": "BG Stats import link (bgstats:// scheme)."},
        "bgstats_web": {"type": "string", "description": "The same import as an https link."},
        "evening": {"type": "object", "description": (
            "From the second game at the table on: every finished game's figures per seat (`games`) "
            "and the running total (`totals`: score, wins); docs/results.md."),
            "properties": {"games": {"type": "array", "items": {"type": "object"}}, "totals": {"type": "object"}},
            "required": ["games", "totals"]},
    },
    "required": ["table", "game", "version", "started_at", "finished_at", "duration_min", "players",
                 "rounds", "details", "bgstats", "bgstats_web"],
}


def _err(*statuses: int) -> dict[str, Any]:
    return {
        str(s): {"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        for s in statuses
    }


def _ok(status: int, schema: dict[str, Any], desc: str = "ok") -> dict[str, Any]:
    return {str(status): {"description": desc, "content": {"application/json": {"schema": schema}}}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 64}}
AUTH: list[dict[str, list[str]]] = [{"bearer": []}, {}]


def _action_variants(engines: list[Engine]) -> list[dict[str, Any]]:
    variants: dict[str, dict[str, Any]] = {}
    sources: list[tuple[str, dict[str, dict[str, Any]]]] = [("platform", platform_actions.SCHEMAS)]
    sources += [(e.name, e.action_schemas) for e in engines]
    for source, table in sources:
        for atype, payload in table.items():
            if atype == "set_paper":
                continue  # the platform's phoneless sends it; a client cannot
            key = f"{source}.{atype}"
            variants[key] = {
                "title": key,
                "type": "object",
                "properties": {"type": {"const": atype}, **payload.get("properties", {})},
                "required": ["type", *payload.get("required", [])],
                "additionalProperties": False,
            }
    return list(variants.values())


def document(engines: list[Engine]) -> dict[str, Any]:
    action_body = {
        **schemas.ACTION_BODY,
        "properties": {
            **schemas.ACTION_BODY["properties"],
            "action": {"anyOf": _action_variants(engines)},
        },
    }
    create_body = {
        **schemas.CREATE_BODY,
        "properties": {**schemas.CREATE_BODY["properties"], "game": {"enum": [e.name for e in engines]}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tablemate API", "version": "1", "description": "See docs/api.md."},
        "components": {
            "schemas": {"Error": ERROR, "Snapshot": SNAPSHOT, "Result": RESULT, **{
                f"options.{e.name}": e.options_schema for e in engines}},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "paths": {
            "/api/tables": {"post": {
                "operationId": "createTable", "requestBody": _body(create_body),
                "responses": {**_ok(201, {"type": "object", "properties": {
                    "table": {"type": "string"}, "code": {"type": "string"},
                    "join_url": {"type": "string"}, "qr_svg": {"type": "string"},
                    "player": PLAYER_TOKEN}, "required": ["table", "code", "join_url", "qr_svg", "player"]}),
                    **_err(400, 413, 429, 503)},
            }},
            "/api/codes/{code}": {"get": {
                "operationId": "lookupCode",
                "parameters": [{"name": "code", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {**_ok(200, {"type": "object", "properties": {
                    "table": {"type": "string"}, "status": {"enum": ["lobby", "playing", "over"]}},
                    "required": ["table", "status"]}), **_err(404, 429, 503)},
            }},
            "/api/tables/{table_id}": {"get": {
                "operationId": "getTable", "parameters": [TABLE_ID], "security": AUTH,
                "responses": {**_ok(200, {"$ref": "#/components/schemas/Snapshot"}), **_err(401, 404, 503)},
            }},
            "/api/tables/{table_id}/players": {"post": {
                "operationId": "joinTable", "parameters": [TABLE_ID], "requestBody": _body(schemas.JOIN_BODY),
                "security": AUTH,
                "description": 'A phone joins (a new token). With `"phone": false` and the host\'s '
                               "token, the host adds a seat without a phone (no token).",
                "responses": {**_ok(201, {"type": "object", "properties": {
                    "player": {"anyOf": [PLAYER_TOKEN, PHONELESS_SEAT]}}, "required": ["player"]}),
                    **_err(400, 401, 403, 404, 409, 413, 429, 503)},
            }},
            "/api/tables/{table_id}/actions": {"post": {
                "operationId": "act", "parameters": [TABLE_ID], "security": [{"bearer": []}],
                "requestBody": _body(action_body),
                "responses": {**_ok(200, {"type": "object", "properties": {
                    "version": {"type": "integer"}, "events": {"type": "array", "items": {"type": "object"}}},
                    "required": ["version", "events"]}), **_err(400, 401, 403, 404, 409, 413, 429, 503)},
            }},
            "/api/tables/{table_id}/players/{player}/rejoin": {"post": {
                "operationId": "rejoinSeat", "security": [{"bearer": []}],
                "parameters": [TABLE_ID, {"name": "player", "in": "path", "required": True,
                                          "schema": {"type": "string"}}],
                "description": "Host only: a one-time rejoin code for the seat, never a token. The "
                               "phone that redeems it (`/claim`) gets a fresh token; mid-game that seat "
                               "is sealed until its own PIN unlocks it.",
                "responses": {**_ok(200, {"type": "object", "properties": {
                    "player": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
                    "claim": {"type": "string"}, "expires_in": {"type": "integer"},
                    "rejoin_url": {"type": "string"}, "qr_svg": {"type": "string"}},
                    "required": ["player", "claim", "expires_in", "rejoin_url", "qr_svg"]}),
                    **_err(401, 403, 404, 409, 429, 503)},
            }},
            "/api/tables/{table_id}/claim": {"post": {
                "operationId": "claimSeat", "parameters": [TABLE_ID],
                "requestBody": _body(schemas.CLAIM_BODY),
                "description": "Redeems a rejoin code once: the seat's id and a fresh token; the seat's "
                               "old token stops working.",
                "responses": {**_ok(201, {"type": "object", "properties": {"player": PLAYER_TOKEN},
                                          "required": ["player"]}),
                              **_err(400, 404, 413, 429, 503)},
            }},
            "/api/tables/{table_id}/history": {"get": {
                "operationId": "history", "security": AUTH,
                "description": "The latest `limit` log entries below version `before`, as lines by round "
                               "(Camel Up: by leg) of each game. An entry may make "
                               "several lines (the die that ends a leg, the leg's scoring, the next leg's "
                               "start), and a stretch of numbers counted aloud (Count Up) makes one line "
                               "covering versions `first` to `version`. Every line is `parts`: string keys "
                               "(web/i18n/<lang>.json, the game's strings.js under `<game>.`) and plain values, "
                               "which the phone words in its own language. "
                               "When `more`, older entries exist: ask again with `before=next_before`.",
                "parameters": [TABLE_ID, {"name": "lang", "in": "query", "description": "ignored (the phone words the lines)",
                                          "schema": {"type": "string", "maxLength": 16}},
                               {"name": "before", "in": "query", "description": "only entries below this version",
                                "schema": {"type": "integer", "minimum": 1, "maximum": 2**31}},
                               {"name": "limit", "in": "query", "description": "entries per page",
                                "schema": {"type": "integer", "minimum": 1,
                                           "maximum": history.HISTORY_PAGE_MAX, "default": history.HISTORY_PAGE}}],
                "responses": {**_ok(200, {"type": "object", "properties": {
                    "version": {"type": "integer"},
                    "games": {"type": "integer", "description": "games played at the table (1 + play_again's)"},
                    "names": {"type": "object", "additionalProperties": {"type": "string"},
                              "description": "the names of the seats `entered_for` lines name, and of who entered them"},
                    "rounds": {"type": "array", "items": {
                        "type": "object", "required": ["game", "round", "entries"], "properties": {
                            "game": {"type": "integer", "description":
                                     "which game of the table: 1, then one more after each play_again"},
                            "round": {"type": "integer"},
                            "entries": {"type": "array", "items": {
                                "type": "object", "required": ["version", "first", "by", "parts", "undone"],
                                "properties": {"version": {"type": "integer"}, "first": {"type": "integer"},
                                               "by": {"type": ["string", "null"]},
                                               "undone": {"type": "boolean"},
                                               "entered_for": {"type": "string", "description":
                                                               "the seat without a phone `by` entered it for"},
                                               "retracted": {"type": ["string", "integer", "object", "array"],
                                                             "description":
                                                             "the sealed choice an undone line held, once the game "
                                                             "is over, as a value of a part's params (a part, a "
                                                             "list, a number or a string), worded by the phone"},
                                               "parts": {"type": "array", "description":
                                                         "the line as string keys and their values, joined by a "
                                                         "space; a value may itself be a part, a list of them or "
                                                         "{\"and\": [...]} (web/history.js)",
                                                         "items": {"type": "object", "required": ["key", "params"],
                                                                   "properties": {"key": {"type": "string"},
                                                                                  "params": {"type": "object"}}}}}}}}}},
                    "more": {"type": "boolean"}, "next_before": {"type": ["integer", "null"]}},
                    "required": ["version", "games", "names", "rounds", "more", "next_before"]}), **_err(400, 401, 404, 503)},
            }},
            "/api/tables/{table_id}/analysis": {"get": {
                "operationId": "analysis", "parameters": [TABLE_ID], "security": AUTH,
                "responses": {**_ok(200, {"type": "object", "properties": {
                    "version": {"type": "integer"}, "analysis": {"type": ["object", "null"]}},
                    "required": ["version", "analysis"]}), **_err(401, 404, 429, 503)},
            }},
            "/api/tables/{table_id}/result": {"get": {
                "operationId": "result", "security": AUTH,
                "parameters": [TABLE_ID, {"name": "tz", "in": "query",
                                          "description": "UTC offset in minutes, east positive (BG Stats' local date)",
                                          "schema": {"type": "string", "maxLength": 16}}],
                "responses": {**_ok(200, {"$ref": "#/components/schemas/Result"}),
                              **_err(401, 404, 409, 503)},
            }},
            "/api/tables/{table_id}/proof": {"get": {
                "operationId": "proof", "parameters": [TABLE_ID], "security": AUTH,
                "description": "What every phone (or `python -m tablemate_verify`) checks the table's "
                               "random outcomes and sealed choices against; docs/fairness.md.",
                "responses": {**_ok(200, {"type": "object", "properties": {
                    "format": {"const": "tablemate-proof/2"}, "table": {"type": "string"},
                    "game": {"type": "string"}, "scopes": {"type": "array", "items": {"type": "object"}},
                    "sealed": {"type": "array", "items": {"type": "object"}},
                    "starts": {"type": "array", "items": {"type": "object"}},
                    "seeded": {"type": "array", "items": {"type": "object"}},
                    "version": {"type": "integer", "description": "The table's version the proof was read at."}},
                    "required": ["format", "table", "game", "version", "scopes", "sealed", "starts", "seeded"]}),
                    **_err(401, 404, 503)},
            }},
            "/api/tables/{table_id}/qr.svg": {"get": {
                "operationId": "joinQr", "parameters": [TABLE_ID],
                "responses": {"200": {"description": "SVG", "content": {"image/svg+xml": {"schema": {"type": "string"}}}},
                              **_err(404, 503)},
            }},
            "/api/tables/{table_id}/qr.png": {"get": {
                "operationId": "joinQrPng", "parameters": [TABLE_ID],
                "responses": {"200": {"description": "PNG (what the lobby shows: decoded off the page's main thread)",
                                      "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}},
                              **_err(404, 503)},
            }},
            "/api/games": {"get": {
                "operationId": "games",
                "responses": _ok(200, {"type": "object", "properties": {"games": {"type": "array", "items": {
                    "type": "object",
                    "required": ["name", "title", "min_players", "max_players", "options_schema", "actions",
                                 "platform_actions"],
                    "properties": {"name": {"type": "string"}, "title": {"type": "object"},
                                   "min_players": {"type": "integer"}, "max_players": {"type": "integer"},
                                   "options_schema": {"type": "object"},
                                   "actions": {"type": "array", "items": {"type": "string"}},
                                   "random_options": {"type": "array", "items": {"type": "string"}},
                                   "host_actions": {"type": "array", "items": {"type": "string"}},
                                   "platform_actions": {
                                       "description": "Action types every table handles whatever its game "
                                                      "(the same list for every game).",
                                       "type": "array", "items": {"enum": list(platform_actions.SCHEMAS)}}}}}},
                    "required": ["games"]}),
            }},
            "/api/openapi.json": {"get": {
                "operationId": "openapi",
                "responses": _ok(200, {"type": "object", "required": ["openapi", "paths"]}),
            }},
            "/healthz": {"get": {
                "operationId": "health",
                "responses": {**_ok(200, {"type": "object"}), **_err(503)},
            }},
        },
    }
