"""Platform actions: the changes every table understands whatever its game
(start, seats, rename, remove, host, undo, seats without a phone, and the
host's rejoin codes).

Each handler changes its private copy of the document and says what to log; the
pipeline (``server/service/pipeline.py``) bumps the version, logs and commits. Each
action's record (schema, handler, offer, budget, history text) is in
``platform_actions.ACTIONS``.
"""

from __future__ import annotations

import hmac
from typing import Any

from engines.base import EngineError
from server.errors import ServiceError
from server.model import Action, Claim, Event, LogEntry, Seat, StartRecord, TableDoc
from server.service import atrest, fairness
from server.service.change import (
    Call,
    Outcome,
    engine_error,
    need_host,
    need_lobby,
    sealed_seat,
    seat_step,
    set_state,
)
from server.service.replay import initial_state, paper_action, replayed
from server.service.seats import NO_TOKEN, check_unique, clean_name, pin_hash, pin_ok, seat_of
from server.service.stall import check_phoneless, reopens


def start_game(c: Call) -> Outcome:
    need_host(c.host, "start the game")
    need_lobby(c.doc, "start")
    doc = c.doc
    players = [s["id"] for s in doc["seats"]]
    lo, hi = doc["min_players"], doc["max_players"]
    if not lo <= len(players) <= hi:
        raise ServiceError("conflict", "bad_player_count",
                       f"{c.engine.title['en']} needs {lo}–{hi} players; this table has {len(players)}.")
    paper = [s["id"] for s in doc["seats"] if s.get("phone") is False]
    try:
        # The board and first cards come from the setup scope the lobby opened.
        draw_with, fair = fairness.setup_rng(c.engine, doc, c.rng)
        options = c.engine.draw_setup(players, doc["options"], draw_with)
        if fair is not None:
            fair.fields = {k: options[k] for k in c.engine.random_option_fields if options.get(k) is not None}
        # This start's version (the pipeline logs it as the next one): undo and
        # results read only the game actions after it.
        start: StartRecord = {"players": players, "options": options, "v": doc["version"] + 1}
        if paper:
            start["paper"] = paper
        state = initial_state(c.engine, start)
    except EngineError as exc:
        raise engine_error(exc) from exc
    doc["start"] = start
    set_state(c.engine, doc, state)
    # The code stops being shown, but keeps naming this table in the store so
    # a late joiner learns the game has started, and "play again" reopens the
    # lobby under it (the commit keeps its key alive with the table's).
    if doc["code"]:
        doc["held_code"] = doc["code"]
    doc["code"] = None
    action: Action = {"type": "start", "players": players, "options": options}
    if paper:
        action["paper"] = paper
    return Outcome(doc, action, [{"type": "started"}], state=state, draw=fair)


def reorder_seats(c: Call) -> Outcome:
    need_host(c.host, "reorder seats")
    need_lobby(c.doc, "reorder seats")
    order: list[str] = c.payload["order"]
    # The order the host's screen showed: a tap made from an order since changed
    # must not win, while a change elsewhere (a phone's anchor as it joins, a
    # rename) must not refuse it, as the table's version would.
    if "from" in c.payload and c.payload["from"] != [s["id"] for s in c.doc["seats"]]:
        raise ServiceError("conflict", "seats_changed", "The seats changed in the meantime; look again and retry.")
    by_id = {s["id"]: s for s in c.doc["seats"]}
    if sorted(order) != sorted(by_id) or len(set(order)) != len(order):
        raise ServiceError("invalid", "bad_order", "The order must list every seat exactly once.")
    c.doc["seats"] = [by_id[p] for p in order]
    return Outcome(c.doc, {"type": "seats", "order": order}, [{"type": "seats_reordered"}])


def rename_seat(c: Call) -> Outcome:
    target: str = c.payload["player"]
    if target != c.me:
        need_host(c.host, "rename another seat")
    seat = seat_of(c.doc, target)
    name = clean_name(c.payload["name"])
    check_unique(c.doc, name, target)
    old, seat["name"] = seat["name"], name
    return Outcome(c.doc, {"type": "rename", "player": target, "name": name},
                   [{"type": "renamed", "player": target, "old": old, "name": name}])


def remove_seat(c: Call) -> Outcome:
    need_host(c.host, "remove a seat")
    need_lobby(c.doc, "remove seats")
    target: str = c.payload["player"]
    if target == c.me:
        raise ServiceError("conflict", "cannot_remove_host", "Hand host powers to someone else first.")
    seat = seat_of(c.doc, target)
    c.doc["seats"] = [s for s in c.doc["seats"] if s["id"] != target]
    return Outcome(c.doc, {"type": "remove", "player": target},
                   [{"type": "removed", "player": target, "name": seat["name"]}])


def transfer_host(c: Call) -> Outcome:
    need_host(c.host, "transfer host powers")
    target: str = c.payload["player"]
    if seat_of(c.doc, target).get("phone") is False:
        # Its phone, if it has one, is paused: nobody could act as host.
        raise ServiceError("conflict", "phoneless_host",
                           "A seat without a phone cannot be the host: hand it back to its phone first.")
    c.doc["host"] = target
    return Outcome(c.doc, {"type": "host", "player": target},
                   [{"type": "host_changed", "player": target}])


def undo_last(c: Call) -> Outcome:
    """Rebuilds the state by replaying every logged game action but the undone ones."""
    need_host(c.host, "undo")
    doc = c.doc
    if doc["status"] != "lobby" and not doc["undoable"] and "sealed_at" in doc:
        raise ServiceError("conflict", "undo_sealed",
                       "Undo stops at the last reveal (votes, sheets or final cards): what was "
                       "revealed stays as it was.")
    if doc["status"] == "lobby" or not doc["undoable"] or doc["start"] is None:
        raise ServiceError("conflict", "nothing_to_undo", "There is no game action to undo.")
    target = doc["undoable"][-1]
    # The action the host's sheet named: an undo sent while another landed (a
    # tap queued offline, a reload) must not take back one the host never saw,
    # while a change that is no action (an anchor, a seat's seed) must not refuse it.
    if "target" in c.payload and c.payload["target"] != target:
        raise ServiceError("conflict", "undo_moved", "Another action came since; look at what undo takes back now.")
    chooser = reopens(c, target)
    doc["undoable"].pop()
    # Every game action of this game but those undone, this one included;
    # actions before a reveal are replayed too, though no longer undoable.
    state = initial_state(c.engine, doc["start"])
    undone: LogEntry | None = None
    entries = list(c.log())
    by_v = {e["v"]: e for e in entries}
    for v, action in replayed(doc, entries):
        if v == target:
            undone = by_v[v]
        else:
            state, _ = c.engine.apply(state, action)
    set_state(c.engine, doc, state)
    event: Event = {"type": "undone", "target": target, "action": undone["action"]["type"] if undone else None}
    rids = []
    if undone is not None:
        action = undone["action"]
        fields = {k: action[k] for k in c.engine.random_action_fields.get(action["type"], ()) if k in action}
        if fields:
            # Drawn once: the die goes back on top of the pyramid, the card back
            # to its seat; the next such action reveals exactly this again.
            doc.setdefault("stash", []).append(
                {"type": action["type"], "player": str(action.get("player") or undone["by"]), "fields": fields})
            event["kept"] = True
        if "rid" in undone:
            rids.append(undone["rid"])
    if chooser is not None:
        # Its phone makes that choice again; nobody else may (stall.py).
        doc["reopened"] = [*(p for p in doc.get("reopened", ()) if p != chooser), chooser]
        event["reopened"] = chooser
    return Outcome(doc, {"type": "undo", "target": target}, [event], undone_requests=rids, state=state)


def play_again(c: Call) -> Outcome:
    """Host only, once the game is over: this table goes back to its lobby with
    the same seats, tokens, host and options, so every phone stays attached and
    the host starts the next game with one more tap (or changes seats first).
    The version and the log go on: the finished game stays in the history, and
    the next ``start`` records where its game begins (undo and results read
    only what follows it), and the history groups each game apart
    (``rematches``). The lobby shows the join code again: it kept naming this
    table during the game (``held_code``)."""
    need_host(c.host, "start a new game")
    doc = c.doc
    if doc["status"] != "over":
        raise ServiceError("conflict", "not_over", "A new game can start only once this one is over.")
    finished = doc["start"].get("v") if doc["start"] is not None else None
    doc["rematches"] = [*doc.get("rematches", []), doc["version"] + 1]
    if "held_code" in doc:
        doc["code"] = doc.pop("held_code")
    doc["status"] = "lobby"
    doc["state"] = None
    doc["start"] = None
    doc["round"] = 0
    doc["undoable"] = []
    doc.pop("stash", None)
    doc.pop("sealed_at", None)
    # A seal guards the secrets dealt before a mid-game rejoin; the next game
    # deals new ones to whoever holds the seat now. Not the host's seat opened by
    # another's code: lifted, its holder would be the host (a stand-in's own phone).
    for seat in doc["seats"]:
        if not seat.get("seal_kept"):
            seat.pop("sealed", None)
    fairness.begin(c.engine, doc, c.rng)
    return Outcome(doc, {"type": "play_again"}, [{"type": "new_game", "finished": finished}])


def issue_rejoin(doc: TableDoc, host: bool, player: str, claim: Claim) -> Outcome:
    """Host only: a one-time rejoin code for the seat ``player`` (``claim``
    keeps its SHA-256 and expiry; a newer code replaces it). Not an action
    type: it has its own endpoint, because its answer, the code, must reach
    the host alone. The host never holds a seat token: the phone that redeems
    the code gets a fresh one (``claim_seat``), and the seat's current token
    keeps working until then (a code shown by mistake breaks nothing)."""
    need_host(host, "issue a rejoin code")
    seat = seat_of(doc, player)
    seat["claim"] = claim
    return Outcome(doc, {"type": "rejoin", "player": player}, [{"type": "rejoin_issued", "player": player}])


def claim_seat(doc: TableDoc, seat: Seat, th: str) -> Outcome:
    """The phone that redeemed ``seat``'s rejoin code: the seat opens with the
    token hash ``th`` from now on, the old token stops working and the code
    is gone. Mid-game the seat is sealed: the host saw the code first and may
    have redeemed it, so whoever holds the new token sees no secret and may
    only ``unlock`` until the seat's own PIN (chosen earlier on its own
    phone) proves its owner holds it. In the lobby there are no secrets yet."""
    seat.pop("claim", None)
    seat.pop("back", None)
    seat["th"] = th
    # A seat without a phone gets one. Mid-game it stays on paper in the
    # engine: what it keeps secret this game is already on cards and paper.
    seat.pop("phone", None)
    event: Event = {"type": "claimed", "player": seat["id"]}
    if doc["status"] != "lobby":
        seat["sealed"] = True
        event["sealed"] = True
    return Outcome(doc, {"type": "claim", "player": seat["id"]}, [event])


def set_pin(c: Call) -> Outcome:
    """A seat chooses (or changes) its recovery PIN. A sealed seat cannot: the
    holder of a re-issued token would just choose a PIN and unlock."""
    seat = seat_of(c.doc, c.me)
    if seat.get("sealed"):
        raise sealed_seat()
    seat["pin"] = c.pin if c.pin is not None else pin_hash(c.payload["pin"])
    return Outcome(c.doc, {"type": "pin"}, [{"type": "pin_set", "player": c.me}])


def unlock_seat(c: Call) -> Outcome:
    """The seat's owner proves itself on a new phone: its secrets show again.
    (Attempts are rate limited by the pipeline before this runs.)"""
    seat = seat_of(c.doc, c.me)
    if not seat.get("sealed"):
        raise ServiceError("conflict", "not_sealed", "This seat is not locked.")
    if "pin" not in seat:
        raise ServiceError("conflict", "no_pin", "This seat has no PIN, so it stays locked for this game.")
    stored = seat["pin"]
    if c.pin is not None and c.pin["salt"] == stored["salt"]:
        ok = hmac.compare_digest(c.pin["hash"], stored["hash"])
    else:  # stretched before a concurrent change of the seat's PIN: again, here
        ok = pin_ok(seat, c.payload["pin"])
    if not ok:
        raise ServiceError("forbidden", "bad_pin", "That PIN is not this seat's.")
    del seat["sealed"]
    seat.pop("seal_kept", None)
    return Outcome(c.doc, {"type": "unlock"}, [{"type": "unlocked", "player": c.me}])


def make_phoneless(c: Call) -> Outcome:
    """``player``'s seat goes on without a phone (its phone died, its player
    stepped away or would rather not use one), sent by the host for a seat
    whose phone has no live socket, or by the seat's own phone; the host (or any
    phone, ``set_proxies``) enters its actions with ``as``. Its phone keeps
    its token but is paused (``seats.paused``: a spectator's view, no
    action) until the host hands the seat back to it (``stall.phone_back``);
    a new phone takes the seat only by a rejoin code, which shuts the old one
    out. Mid-game the engine's ``set_paper`` is applied in the same change
    and logged with it (``action["engine"]``), so undo and results replay it
    in its place."""
    doc = c.doc
    target: str = c.payload["player"]
    if target != c.me:
        need_host(c.host, "take another seat off its phone")
    seat = seat_of(doc, target)
    # A live phone is taken off only by itself: its player's choice, not the host's.
    check_phoneless(doc, c.me, target, c.online)
    if target == doc["host"]:
        raise ServiceError("conflict", "host_needs_phone", "The host keeps a phone: hand host powers to someone else first.")
    if seat.get("phone") is False:
        raise ServiceError("conflict", "already_phoneless", f"{seat['name']} already has no phone.")
    action: Action = {"type": "phoneless", "player": target}
    events: list[Event] = [{"type": "phoneless", "player": target}]
    state: Any = None
    if doc["status"] == "playing":
        state = atrest.load_state(c.engine, doc)
        # Given a phone again by a rejoin code, a seat stays on paper this game.
        if target not in c.engine.paper_seats(state):
            state = seat_step(c, state, paper_action(target, c.me), action, events)
    seat["phone"] = False
    seat.pop("back", None)
    if seat["th"] != NO_TOKEN:
        events[0]["paused"] = True
    return Outcome(doc, action, events, state=state)


def set_proxies(c: Call) -> Outcome:
    """Host only: who may act for seats without a phone, the host alone
    ("host", the default) or every seated phone ("all")."""
    need_host(c.host, "choose who enters for seats without a phone")
    who: str = c.payload["who"]
    if who == "all":
        c.doc["proxies"] = "all"
    else:
        c.doc.pop("proxies", None)
    return Outcome(c.doc, {"type": "proxies", "who": who}, [{"type": "proxies_set", "who": who}])
