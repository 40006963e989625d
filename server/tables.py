"""The service layer: the only module that joins engines and the store.

One pipeline for every action, from HTTP or WebSocket alike: authenticate →
validate the payload against its schema → apply (platform or engine) → store
atomically with the next version → publish (the store does that on commit).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines.base import Engine, EngineError
from server import schemas
from server.errors import ApiError, bad_token, not_found
from server.offload import offload
from server.store import Commit, Store, Tx

log = logging.getLogger(__name__)

# Six characters with no look-alikes (no 0/O, 1/I/L), typed from a phone keyboard.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6

# Engine refusals are conflicts with the table's state, except these.
_ENGINE_STATUS = {"not_host": 403, "bad_action": 400, "invalid_payload": 400, "bad_options": 400}


def new_table_id() -> str:
    return secrets.token_urlsafe(16)  # 128 bits


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def find_seat(doc: dict[str, Any], token: str | None) -> dict[str, Any] | None:
    """The seat this token opens, comparing every hash in constant time."""
    if not token:
        return None
    digest = token_hash(token)
    found = None
    for seat in doc["seats"]:
        if hmac.compare_digest(seat["th"], digest):
            found = seat
    return found


def clean_name(name: str) -> str:
    """NFC, trimmed of spaces, cut to ``NAME_LIMIT`` characters; control and
    format characters are refused (they could hide or reorder text).

    >>> clean_name("  민지  ")
    '민지'
    >>> len(clean_name("x" * 200))
    24
    """
    name = unicodedata.normalize("NFC", name).strip()
    # A ZWJ (U+200D) joins emoji; other format characters (bidi overrides) are refused.
    if any(unicodedata.category(c) in {"Cc", "Cs", "Co", "Cn"} or
           (unicodedata.category(c) == "Cf" and c != "\u200d") for c in name):
        raise ApiError(400, "bad_name", "Names may not contain control characters.")
    name = name[: schemas.NAME_LIMIT].strip()
    if not name:
        raise ApiError(400, "bad_name", "A name needs at least one visible character.")
    return name


def engine_error(exc: EngineError) -> ApiError:
    return ApiError(_ENGINE_STATUS.get(exc.code, 409), exc.code, exc.message)


@dataclass
class Outcome:
    """What a handler decided: the new document, the logged action and events."""

    doc: dict[str, Any]
    action: dict[str, Any]
    events: list[dict[str, Any]]
    kind: str = "platform"
    drop_code: str | None = None


class Tables:
    def __init__(
        self,
        store: Store,
        engines: Callable[[str], Engine | None],
        *,
        fixed_random: bool = False,
        rng: Any = None,
    ) -> None:
        self.store = store
        self.engines = engines
        self.fixed_random = fixed_random
        self.rng = rng or secrets.SystemRandom()
        self._analysis_cache: dict[tuple[str, int, str | None], dict[str, Any]] = {}
        self._analysis_lock = threading.Lock()
        self._analysis_pending: dict[tuple[str, int, str | None], threading.Event] = {}

    # -- helpers ---------------------------------------------------------------

    def engine(self, game: str) -> Engine:
        eng = self.engines(game)
        if eng is None:
            raise ApiError(400, "unknown_game", f"No game called {game!r}.")
        return eng

    def load(self, table_id: str) -> dict[str, Any]:
        doc = self.store.load(table_id) if _plausible_id(table_id) else None
        if doc is None:
            raise not_found()
        return doc

    def seat_for(self, doc: dict[str, Any], token: str | None) -> dict[str, Any] | None:
        """None for a spectator (no token); 401 for a token that opens no seat."""
        if token is None:
            return None
        seat = find_seat(doc, token)
        if seat is None:
            raise bad_token()
        return seat

    def _refuse_random(self, fields: set[str], what: str) -> None:
        if fields and not self.fixed_random:
            raise ApiError(
                400, "fixed_random_off",
                f"{what} may not carry random outcomes ({', '.join(sorted(fields))}) on this server.",
            )

    # -- create and join -------------------------------------------------------

    def create(self, body: Any) -> tuple[dict[str, Any], str]:
        schemas.validate(schemas.CREATE_BODY, body, "create")
        engine = self.engine(body["game"])
        options = dict(body.get("options") or {})
        self._refuse_random(set(options) & set(engine.random_option_fields), "Options")
        options = schemas.options_with_defaults(engine, options)
        try:
            options = engine.normalize_options(options)
        except EngineError as exc:
            raise ApiError(400, "bad_options", exc.message) from exc
        name = clean_name(body["name"])
        token = new_token()
        now = time.time()
        for _ in range(20):
            tid, code = new_table_id(), new_code()
            if not self.store.reserve_code(code, tid):
                continue
            lo, hi = engine.player_limits(options)
            doc: dict[str, Any] = {
                "id": tid, "code": code, "game": engine.name, "options": options,
                "status": "lobby", "version": 1, "host": "p1",
                "seats": [{"id": "p1", "name": name, "th": token_hash(token)}],
                "next_pid": 2, "state": None, "start": None, "round": 0,
                "undoable": [], "min_players": lo, "max_players": hi, "created": now,
            }
            entry = _entry(1, "p1", 0, "platform", {"type": "create", "name": name},
                           [{"type": "created", "player": "p1"}])
            if self.store.create(doc, entry):
                return doc, token
        raise ApiError(503, "store_busy", "Could not allocate a table; try again.")

    def table_for_code(self, code: str) -> str:
        code = code.strip().upper()
        tid = self.store.code_table(code) if len(code) == CODE_LENGTH and code.isalnum() else None
        doc = self.store.load(tid) if tid else None
        if doc is None or doc["status"] != "lobby":
            raise ApiError(404, "code_not_found", "No open table has this code.")
        return tid

    def join(self, table_id: str, body: Any) -> tuple[str, str]:
        schemas.validate(schemas.JOIN_BODY, body, "join")
        name = clean_name(body["name"])
        token = new_token()
        self.load(table_id)

        def fn(tx: Tx) -> Commit:
            doc = tx.copy()
            if doc["status"] != "lobby":
                raise ApiError(409, "game_started", "This game has started; new seats are closed.")
            if len(doc["seats"]) >= doc["max_players"]:
                raise ApiError(409, "table_full", f"This table is full ({doc['max_players']} seats).")
            pid = f"p{doc['next_pid']}"
            doc["next_pid"] += 1
            doc["seats"].append({"id": pid, "name": name, "th": token_hash(token)})
            doc["version"] += 1
            entry = _entry(doc["version"], pid, 0, "platform", {"type": "join", "name": name},
                           [{"type": "joined", "player": pid}])
            return Commit(doc, entry, result=pid)

        return self._update(table_id, fn), token

    def rejoin(self, table_id: str, token: str | None, player: str) -> str:
        """Host only: a fresh token for ``player``; the old one stops working."""
        new = new_token()

        def fn(tx: Tx) -> Commit:
            doc = tx.copy()
            me = self.seat_for(doc, token) if token else None
            if me is None:
                raise bad_token()
            if doc["host"] != me["id"]:
                raise ApiError(403, "not_host", "Only the host can issue a rejoin code.")
            seat = _seat(doc, player)
            seat["th"] = token_hash(new)
            doc["version"] += 1
            entry = _entry(doc["version"], me["id"], doc["round"], "platform",
                           {"type": "rejoin", "player": player},
                           [{"type": "rejoin_issued", "player": player}])
            return Commit(doc, entry)

        self._update(table_id, fn)
        return new

    # -- actions ---------------------------------------------------------------

    def act(self, table_id: str, token: str | None, body: Any) -> dict[str, Any]:
        schemas.validate(schemas.ACTION_BODY, body, "action-body")
        doc0 = self.load(table_id)
        if token is None or find_seat(doc0, token) is None:
            raise bad_token()
        engine = self.engine(doc0["game"])
        action = dict(body["action"])
        atype = action.pop("type")
        schema = schemas.action_schema(engine, atype)
        if schema is None:
            raise ApiError(400, "unknown_action", f"{doc0['game']} has no action {atype!r}.")
        schemas.validate(schema, action, f"{engine.name}:{atype}")
        if atype not in schemas.PLATFORM_ACTIONS:
            self._refuse_random(set(action) & set(engine.random_action_fields.get(atype, ())), "Actions")
        request_id: str = body["request_id"]
        expected: int | None = body.get("version")

        def fn(tx: Tx) -> Commit:
            seat = find_seat(tx.doc, token)
            if seat is None:
                raise bad_token()
            cached = tx.cached_result(request_id)
            if cached is not None:
                if cached["by"] != seat["id"]:
                    raise ApiError(409, "request_id_reused", "This request_id belongs to another seat.")
                return Commit(None, result=cached["result"])  # type: ignore[arg-type]
            if expected is not None and expected != tx.doc["version"]:
                raise ApiError(
                    409, "stale_version",
                    f"The table is at version {tx.doc['version']}, not {expected}; refresh and retry.",
                )
            doc = tx.copy()
            host = doc["host"] == seat["id"]
            if atype in schemas.PLATFORM_ACTIONS:
                out = getattr(self, f"_do_{atype}")(engine, doc, seat["id"], host, action, tx)
            else:
                out = self._do_game(engine, doc, seat["id"], host, atype, action)
            out.doc["version"] += 1
            v = out.doc["version"]
            if out.kind == "game":
                out.doc["undoable"].append(v)
            result = {"version": v, "events": out.events}
            entry = _entry(v, seat["id"], out.doc["round"], out.kind, out.action, out.events)
            return Commit(out.doc, entry, (request_id, {"by": seat["id"], "result": result}),
                          drop_code=out.drop_code, result=result)

        return self._update(table_id, fn)

    def _update(self, table_id: str, fn: Callable[[Tx], Commit]) -> Any:
        try:
            return self.store.update(table_id, fn)
        except KeyError:
            raise not_found() from None

    # -- platform actions ------------------------------------------------------

    def _need_host(self, host: bool, what: str) -> None:
        if not host:
            raise ApiError(403, "not_host", f"Only the host can {what}.")

    def _need_lobby(self, doc: dict[str, Any], what: str) -> None:
        if doc["status"] != "lobby":
            raise ApiError(409, "not_in_lobby", f"You can {what} only before the game starts.")

    def _do_start(self, engine: Engine, doc: dict[str, Any], me: str, host: bool,
                  payload: dict[str, Any], tx: Tx) -> Outcome:
        self._need_host(host, "start the game")
        self._need_lobby(doc, "start")
        players = [s["id"] for s in doc["seats"]]
        lo, hi = doc["min_players"], doc["max_players"]
        if not lo <= len(players) <= hi:
            raise ApiError(409, "bad_player_count",
                           f"{engine.title['en']} needs {lo}–{hi} players; this table has {len(players)}.")
        try:
            options = engine.draw_setup(players, doc["options"], self.rng)
            state = engine.setup(players, options)
        except EngineError as exc:
            raise engine_error(exc) from exc
        doc["start"] = {"players": players, "options": options}
        self._set_state(engine, doc, state)
        code, doc["code"] = doc["code"], None
        action = {"type": "start", "players": players, "options": options}
        return Outcome(doc, action, [{"type": "started"}], drop_code=code)

    def _do_seats(self, engine: Engine, doc: dict[str, Any], me: str, host: bool,
                  payload: dict[str, Any], tx: Tx) -> Outcome:
        self._need_host(host, "reorder seats")
        self._need_lobby(doc, "reorder seats")
        order = payload["order"]
        by_id = {s["id"]: s for s in doc["seats"]}
        if sorted(order) != sorted(by_id) or len(set(order)) != len(order):
            raise ApiError(400, "bad_order", "The order must list every seat exactly once.")
        doc["seats"] = [by_id[p] for p in order]
        return Outcome(doc, {"type": "seats", "order": order}, [{"type": "seats_reordered"}])

    def _do_rename(self, engine: Engine, doc: dict[str, Any], me: str, host: bool,
                   payload: dict[str, Any], tx: Tx) -> Outcome:
        target = payload["player"]
        if target != me:
            self._need_host(host, "rename another seat")
        seat = _seat(doc, target)
        name = clean_name(payload["name"])
        old, seat["name"] = seat["name"], name
        return Outcome(doc, {"type": "rename", "player": target, "name": name},
                       [{"type": "renamed", "player": target, "old": old, "name": name}])

    def _do_remove(self, engine: Engine, doc: dict[str, Any], me: str, host: bool,
                   payload: dict[str, Any], tx: Tx) -> Outcome:
        self._need_host(host, "remove a seat")
        self._need_lobby(doc, "remove seats")
        target = payload["player"]
        if target == me:
            raise ApiError(409, "cannot_remove_host", "Hand host powers to someone else first.")
        seat = _seat(doc, target)
        doc["seats"] = [s for s in doc["seats"] if s["id"] != target]
        return Outcome(doc, {"type": "remove", "player": target},
                       [{"type": "removed", "player": target, "name": seat["name"]}])

    def _do_host(self, engine: Engine, doc: dict[str, Any], me: str, host: bool,
                 payload: dict[str, Any], tx: Tx) -> Outcome:
        self._need_host(host, "transfer host powers")
        target = payload["player"]
        _seat(doc, target)
        doc["host"] = target
        return Outcome(doc, {"type": "host", "player": target},
                       [{"type": "host_changed", "player": target}])

    def _do_undo(self, engine: Engine, doc: dict[str, Any], me: str, host: bool,
                 payload: dict[str, Any], tx: Tx) -> Outcome:
        self._need_host(host, "undo")
        if doc["status"] == "lobby" or not doc["undoable"]:
            raise ApiError(409, "nothing_to_undo", "There is no game action to undo.")
        target = doc["undoable"].pop()
        keep = set(doc["undoable"])
        start = doc["start"]
        state = engine.setup(start["players"], start["options"])
        undone_type = None
        for entry in tx.log():
            if entry["kind"] != "game":
                continue
            if entry["v"] == target:
                undone_type = entry["action"]["type"]
            if entry["v"] in keep:
                state, _ = engine.apply(state, entry["action"])
        self._set_state(engine, doc, state)
        return Outcome(doc, {"type": "undo", "target": target},
                       [{"type": "undone", "target": target, "action": undone_type}])

    # -- game actions ----------------------------------------------------------

    def _do_game(self, engine: Engine, doc: dict[str, Any], me: str, host: bool,
                 atype: str, payload: dict[str, Any]) -> Outcome:
        if doc["status"] == "lobby":
            raise ApiError(409, "not_started", "The game has not started yet.")
        state = engine.load(doc["state"])
        action = {"type": atype, **payload, "player": me, "host": host}
        try:
            action = engine.draw(state, action, self.rng)
            state, events = engine.apply(state, action)
        except EngineError as exc:
            raise engine_error(exc) from exc
        self._set_state(engine, doc, state)
        return Outcome(doc, action, events, kind="game")

    def _set_state(self, engine: Engine, doc: dict[str, Any], state: Any) -> None:
        status = engine.status(state)
        doc["state"] = engine.dump(state)
        doc["round"] = int(status.get("round", 0))
        doc["status"] = "over" if status.get("over") else "playing"

    # -- reads -----------------------------------------------------------------

    def snapshot(self, doc: dict[str, Any], player: str | None, state: Any = None) -> dict[str, Any]:
        """What ``player`` (None: spectator) sees of the table. ``state`` may be
        passed pre-loaded when building many snapshots of one version."""
        engine = self.engine(doc["game"])
        if doc["state"] is not None and state is None:
            state = engine.load(doc["state"])
        public = engine.public_players(state) if state is not None else {}
        players = [
            {"id": s["id"], "name": s["name"], "host": s["id"] == doc["host"], **public.get(s["id"], {})}
            for s in doc["seats"]
        ]
        host = player is not None and player == doc["host"]
        legal: list[dict[str, Any]] = []
        if state is not None:
            view = engine.view(state, player)
            if player is not None:
                legal = host_filter(engine, engine.legal_actions(state, player), host)
        else:
            view = {}
        if host:
            if doc["status"] == "lobby":
                legal.append({"type": "seats"})
                if doc["min_players"] <= len(doc["seats"]) <= doc["max_players"]:
                    legal.append({"type": "start"})
            elif doc["undoable"]:
                legal.append({"type": "undo"})
        return {
            "table": doc["id"], "game": doc["game"], "code": doc["code"], "version": doc["version"],
            "status": doc["status"], "host": doc["host"], "me": player, "options": doc["options"],
            "min_players": doc["min_players"], "max_players": doc["max_players"],
            "round": doc["round"], "players": players, "view": view, "legal": legal,
        }

    def analysis(self, doc: dict[str, Any], player: str | None) -> dict[str, Any]:
        """The engine's analysis of this version, computed once per instance,
        version and viewer: every phone asks right after each change, and the
        first one computes (off the event loop) while the others wait for it."""
        engine = self.engine(doc["game"])
        state = engine.load(doc["state"]) if doc["state"] is not None else None
        viewer = engine.analysis_viewer(state, player) if state is not None else None
        key = (doc["id"], doc["version"], viewer)
        with self._analysis_lock:
            hit = self._analysis_cache.get(key)
            waiting = self._analysis_pending.get(key) if hit is None else None
            mine = hit is None and waiting is None
            if mine:
                waiting = self._analysis_pending[key] = threading.Event()
        if hit is not None:
            return hit
        assert waiting is not None
        if not mine:
            waiting.wait(60)
            with self._analysis_lock:
                hit = self._analysis_cache.get(key)
            return hit or {"version": doc["version"], "analysis": None}
        try:
            result = offload(lambda: engine.analysis(state, viewer)) if state is not None else None
            hit = {"version": doc["version"], "analysis": result}
            with self._analysis_lock:
                self._analysis_cache[key] = hit
                while len(self._analysis_cache) > 512:
                    self._analysis_cache.pop(next(iter(self._analysis_cache)))
        finally:
            with self._analysis_lock:
                self._analysis_pending.pop(key, None)
            waiting.set()
        return hit

    def history(self, table_id: str, lang: str) -> dict[str, Any]:
        doc = self.load(table_id)
        engine = self.engine(doc["game"])
        names = {s["id"]: s["name"] for s in doc["seats"]}
        entries = self.store.log(table_id)
        undone = {e["action"]["target"] for e in entries if e["action"]["type"] == "undo"}
        rounds: dict[int, list[dict[str, Any]]] = {}
        for e in entries:
            for ev in e["events"]:
                names.setdefault(ev.get("player", ""), ev.get("name", ""))
        for e in entries:
            if e["kind"] == "game":
                text = " ".join(engine.describe(ev, lang, names) for ev in e["events"])
            else:
                text = describe_platform(e, lang, names)
            rounds.setdefault(e["round"], []).append(
                {"version": e["v"], "by": e["by"], "text": text, "undone": e["v"] in undone}
            )
        return {
            "version": doc["version"],
            "rounds": [{"round": r, "entries": rounds[r]} for r in sorted(rounds)],
        }


def host_filter(engine: Engine, templates: list[dict[str, Any]], host: bool) -> list[dict[str, Any]]:
    """Drops host-only templates for other seats; strips the ``host`` marker."""
    out = []
    for t in templates:
        host_only = t.get("host") is True or t["type"] in engine.host_actions
        if host_only and not host:
            continue
        out.append({k: v for k, v in t.items() if k != "host"})
    return out


def _plausible_id(table_id: str) -> bool:
    return 8 <= len(table_id) <= 64 and all(c.isalnum() or c in "-_" for c in table_id)


def _seat(doc: dict[str, Any], player: str) -> dict[str, Any]:
    for s in doc["seats"]:
        if s["id"] == player:
            return s
    raise ApiError(404, "no_such_player", f"No seat {player} at this table.")


def _entry(v: int, by: str | None, rnd: int, kind: str, action: dict[str, Any],
           events: list[dict[str, Any]]) -> dict[str, Any]:
    return {"v": v, "by": by, "round": rnd, "kind": kind, "action": action, "events": events,
            "at": round(time.time(), 3)}


_PLATFORM_TEXT = {
    "create": ("{by} 님이 테이블을 만들었습니다.", "{by} created the table."),
    "join": ("{by} 님이 참가했습니다.", "{by} joined."),
    "start": ("게임 시작!", "The game started."),
    "seats": ("{by} 님이 자리 순서를 바꿨습니다.", "{by} changed the seat order."),
    "rename": ("{old} → {name} 이름 변경", "{old} is now {name}."),
    "remove": ("{by} 님이 {name} 님을 내보냈습니다.", "{by} removed {name}."),
    "host": ("{player} 님이 호스트가 되었습니다.", "{player} is now the host."),
    "rejoin": ("{by} 님이 {player} 님의 재접속 코드를 만들었습니다.", "{by} issued a rejoin code for {player}."),
    "undo": ("{by} 님이 마지막 행동을 취소했습니다.", "{by} undid the last action."),
}


def describe_platform(entry: dict[str, Any], lang: str, names: dict[str, str]) -> str:
    action = entry["action"]
    ko, en = _PLATFORM_TEXT.get(action["type"], (action["type"], action["type"]))
    ev = entry["events"][0] if entry["events"] else {}
    fields = {
        "by": names.get(entry["by"] or "", "?"),
        "player": names.get(action.get("player", ""), action.get("player", "")),
        "name": action.get("name") or ev.get("name", ""),
        "old": ev.get("old", ""),
    }
    return (ko if lang == "ko" else en).format(**fields)
