"""Every platform change in one record each: its payload schema, its handler,
when a snapshot offers it, what budget it costs, and its history text.

The pipeline (handlers), the request schemas and OpenAPI, the snapshot's
offers, the budget and the history all read ``ACTIONS`` (what a phone may
send) and ``LOGGED`` (what the platform logs on its own: the table made, a
seat joined, a rejoin code, the stand-in host), so adding a platform action
is one record here, its ``history.<type>`` strings in ``web/i18n/*.json``
and, if it has one, its screen (docs/architecture.md, "Adding a platform
action"). ``tests/server/service/test_platform_actions.py`` checks every
record has every part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from engines.base import Engine, payload_schema
from server.model import Action, LogEntry, Seat, TableDoc
from server.service import draws, platform
from server.service.change import Handler
from server.service.schemas import NAME, PIN, PLAYER_ID
from server.service.stall import phone_back, resume_seat, set_reminder

#: What a change costs a seat (``pipeline.charge``): a game change counts in the
#: seat's share of the log; ``chatter`` in the seat's smaller chatter budget;
#: ``free`` nowhere (a phone must never be kept from giving its seed);
#: ``period`` starts a new budget period (its own entry is the first of it).
Budget = Literal["game", "chatter", "free", "period"]

#: (key, params) of one piece of a history line: a key of ``web/i18n/*.json``.
Part = tuple[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Seen:
    """What a snapshot knows when it offers platform actions to a seat."""

    doc: TableDoc
    seat: Seat | None
    #: The seat holds host powers (and is not sealed or paused).
    host: bool
    sealed: bool


def _name(names: dict[str, str], seat: str) -> str:
    return names.get(seat, seat)


def _fields(entry: LogEntry, names: dict[str, str]) -> dict[str, Any]:
    """The parameters every platform line may name."""
    action = entry["action"]
    ev = entry["events"][0] if entry["events"] else {}
    player: str = action.get("player", "")
    return {
        "by": names.get(entry["by"] or "", "?"),
        "player": _name(names, player),
        "name": action.get("name") or ev.get("name", ""),
        "old": ev.get("old", ""),
        "host": names.get(action.get("host", ""), ""),
    }


def _plain(entry: LogEntry, names: dict[str, str]) -> list[Part]:
    return [(f"history.{entry['action']['type']}", _fields(entry, names))]


def _event(entry: LogEntry) -> dict[str, Any]:
    return entry["events"][0] if entry["events"] else {}


def _join_text(entry: LogEntry, names: dict[str, str]) -> list[Part]:
    # A seat without a phone is added by the host: ``by`` is the host, ``name`` the seat.
    key = "history.join_phoneless" if entry["action"].get("phone") is False else "history.join"
    return [(key, _fields(entry, names))]


def _undo_text(entry: LogEntry, names: dict[str, str]) -> list[Part]:
    ev = _event(entry)
    parts = _plain(entry, names)
    if ev.get("kept"):
        parts.append(("history.undo_kept", {}))
    if ev.get("reopened"):
        parts.append(("history.undo_reopened", {"seat": _name(names, str(ev["reopened"]))}))
    return parts


def _phoneless_text(entry: LogEntry, names: dict[str, str]) -> list[Part]:
    fields = _fields(entry, names)
    # Its own phone sent it: its player's choice.
    mine = entry["action"].get("player") == entry["by"]
    parts: list[Part] = [("history.phoneless_self" if mine else "history.phoneless", fields)]
    if _event(entry).get("paused"):
        parts.append(("history.phoneless_paused", fields))
    return parts


def _claim_text(entry: LogEntry, names: dict[str, str]) -> list[Part]:
    parts = _plain(entry, names)
    if _event(entry).get("sealed"):
        parts.append(("history.claim_sealed", parts[0][1]))
    return parts


def _reminder_text(entry: LogEntry, names: dict[str, str]) -> list[Part]:
    seconds = int(entry["action"].get("seconds", 0))
    m, s = divmod(seconds, 60)
    key = ("history.reminder_off" if not seconds else "history.reminder_min_s" if m and s
           else "history.reminder_min" if m else "history.reminder_s")
    return [(key, {**_fields(entry, names), "m": m, "s": s})]


def _proxies_text(entry: LogEntry, names: dict[str, str]) -> list[Part]:
    key = "history.proxies_all" if entry["action"].get("who") == "all" else "history.proxies_host"
    return [(key, _fields(entry, names))]


@dataclass(frozen=True)
class Logged:
    """A platform change the log records, made by the platform or sent by a phone."""

    budget: Budget = "game"
    #: Its history line's parts; None: the history does not tell it.
    text: Callable[[LogEntry, dict[str, str]], list[Part]] | None = _plain
    #: Every ``web/i18n`` key ``text`` may use (checked in both languages);
    #: empty: ``history.<type>`` alone.
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlatformAction(Logged):
    """A platform action a phone sends (``POST /actions``, the socket's ``act``)."""

    schema: dict[str, Any] = field(default_factory=lambda: payload_schema({}))
    handler: Handler | None = None
    #: Whether a snapshot lists ``{"type": <it>}`` in the seat's ``legal``;
    #: None: never offered as a template (a screen of its own sends it).
    offer: Callable[[Seen], bool] | None = None


def _player(*, budget: Budget = "game", **kw: Any) -> dict[str, Any]:
    return {"schema": payload_schema({"player": PLAYER_ID}, ["player"]), "budget": budget, **kw}


#: A seat order: ``seats``' new order, and the one it was made from.
_ORDER = {"type": "array", "items": PLAYER_ID, "minItems": 1, "maxItems": 64}


def _start_offered(s: Seen) -> bool:
    return s.host and s.doc["status"] == "lobby" and s.doc["min_players"] <= len(s.doc["seats"]) <= s.doc["max_players"]


#: The actions a phone may send, in the order a snapshot offers them.
ACTIONS: dict[str, PlatformAction] = {
    "unlock": PlatformAction(schema=payload_schema({"pin": PIN}, ["pin"]), handler=platform.unlock_seat,
                             offer=lambda s: s.sealed and s.seat is not None and "pin" in s.seat),
    "resume": PlatformAction(handler=resume_seat,
                             offer=lambda s: s.seat is not None and bool(s.seat.get("back")) and not s.sealed),
    "seats": PlatformAction(
        schema=payload_schema({"order": _ORDER, "from": _ORDER}, ["order"]),
        handler=platform.reorder_seats, budget="chatter", offer=lambda s: s.host and s.doc["status"] == "lobby"),
    "start": PlatformAction(handler=platform.start_game, budget="period", offer=_start_offered),
    "undo": PlatformAction(schema=payload_schema({"target": {"type": "integer", "minimum": 0, "maximum": 2**31}}),
                           handler=platform.undo_last, text=_undo_text,
                           keys=("history.undo", "history.undo_kept", "history.undo_reopened"),
                           offer=lambda s: s.host and s.doc["status"] != "lobby" and bool(s.doc["undoable"])),
    "play_again": PlatformAction(handler=platform.play_again, budget="period",
                                 offer=lambda s: s.host and s.doc["status"] == "over"),
    "rename": PlatformAction(schema=payload_schema({"player": PLAYER_ID, "name": NAME}, ["player", "name"]),
                             handler=platform.rename_seat, budget="chatter"),
    "remove": PlatformAction(**_player(handler=platform.remove_seat)),
    "host": PlatformAction(**_player(handler=platform.transfer_host, budget="chatter")),
    "pin": PlatformAction(schema=payload_schema({"pin": PIN}, ["pin"]), handler=platform.set_pin, budget="chatter"),
    "phoneless": PlatformAction(**_player(handler=platform.make_phoneless, text=_phoneless_text,
                                          keys=("history.phoneless", "history.phoneless_self",
                                                "history.phoneless_paused"))),
    "phone_back": PlatformAction(**_player(handler=phone_back)),
    "proxies": PlatformAction(schema=payload_schema({"who": {"enum": ["host", "all"]}}, ["who"]),
                              handler=platform.set_proxies, budget="chatter", text=_proxies_text,
                              keys=("history.proxies_all", "history.proxies_host")),
    # A phone's hash chain for this table, and its links (docs/fairness.md, "Chains"):
    # the proof lists them; a history line per phone and draw would bury the game.
    "anchor": PlatformAction(
        schema=payload_schema({"anchor": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                               "length": {"type": "integer", "minimum": 1, "maximum": 4096}}, ["anchor", "length"]),
        handler=draws.give_anchor, budget="free", text=None),
    "link": PlatformAction(
        schema=payload_schema({"draw": {"type": "integer", "minimum": 0},
                               "link": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}, ["draw", "link"]),
        handler=draws.fast_only, budget="free", text=None),
    "draw_now": PlatformAction(schema=payload_schema({"draw": {"type": "integer", "minimum": 0}}, ["draw"]),
                               handler=draws.fast_only, text=None),
    # The web offers off, 30, 60 and 120 s; any whole number up to 10 minutes is taken.
    "reminder": PlatformAction(
        schema=payload_schema({"seconds": {"type": "integer", "minimum": 0, "maximum": 600}}, ["seconds"]),
        handler=set_reminder, budget="chatter", text=_reminder_text,
        keys=("history.reminder_off", "history.reminder_min_s", "history.reminder_min", "history.reminder_s")),
}

#: What the platform logs by an endpoint or on its own, not an action type.
LOGGED: dict[str, Logged] = {
    "create": Logged(),
    "join": Logged(text=_join_text, keys=("history.join", "history.join_phoneless")),
    # The host's rejoin code has its own endpoint: its answer must reach the host alone.
    "rejoin": Logged(budget="chatter"),
    "claim": Logged(text=_claim_text, keys=("history.claim", "history.claim_sealed")),
    # Made by the server from presence (service/hostship.py), never by a phone.
    "stand_in": Logged(),
    "host_back": Logged(),
    # A draw announced, waiting for the phones' links (draws.py): the draw's own
    # line comes when it is made.
    "draw_pending": Logged(budget="free", text=None),
    # A phone's seed, in tables logged before issue 38's chains.
    "seed": Logged(budget="free", text=None),
}

HANDLERS: dict[str, Handler] = {t: a.handler for t, a in ACTIONS.items() if a.handler is not None}
SCHEMAS: dict[str, dict[str, Any]] = {t: a.schema for t, a in ACTIONS.items()}


def record(atype: str) -> Logged | None:
    return ACTIONS.get(atype) or LOGGED.get(atype)


def budget_types(kind: Budget) -> frozenset[str]:
    """The logged types of budget ``kind``."""
    return frozenset(t for t, r in (*ACTIONS.items(), *LOGGED.items()) if r.budget == kind)


def action_schema(engine: Engine, action_type: str) -> dict[str, Any] | None:
    """The payload schema of ``action_type``, the platform's or else the game's."""
    mine = ACTIONS.get(action_type)
    return mine.schema if mine is not None else engine.action_schemas.get(action_type)


#: The offered actions' tests, in order (each snapshot runs them).
_OFFERS = tuple((t, a.offer) for t, a in ACTIONS.items() if a.offer is not None)


def offers(seen: Seen) -> list[Action]:
    """The platform's templates a snapshot adds to a seat's ``legal``."""
    return [{"type": t} for t, offered in _OFFERS if offered(seen)]


def text_parts(entry: LogEntry, names: dict[str, str]) -> list[Part] | None:
    """A platform log entry's history line as string keys and their
    parameters; None when the history does not tell it (a seed)."""
    rec = record(entry["action"]["type"])
    if rec is None:
        return [("history.unknown", {**_fields(entry, names), "type": entry["action"]["type"]})]
    return rec.text(entry, names) if rec.text is not None else None


def text_keys(atype: str) -> tuple[str, ...]:
    """Every string key ``atype``'s history line may use."""
    rec = record(atype)
    if rec is None or rec.text is None:
        return ()
    return rec.keys or (f"history.{atype}",)
