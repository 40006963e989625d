"""What a seat sees of a table: its snapshot (a sealed or paused seat gets
the spectator's view), the seat list every snapshot shares, the action
templates a seat may send (``host_filter``) and those it may send for seats
without a phone (``proxies``), and since when the game waits for whom.
Nothing here writes."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from engines.base import Engine
from engines.contract import for_seat
from server.fairdoc import FairView
from server.model import Action, Snapshot, Stashed, TableDoc
from server.service import atrest, evening
from server.service import stall as stalls
from server.service.change import pending_redraw
from server.service.draws import pending
from server.service.fairview import public as fair_public
from server.service.hostship import acting, holds
from server.service.platform_actions import Seen, offers
from server.service.seals import to_seal
from server.service.seats import hidden, paused
from server.service.stall import StallRule
from server.store import Store


def host_filter(engine: Engine, templates: list[Action], host: bool) -> list[Action]:
    """Drops host-only templates for other seats; strips the ``host`` marker
    (``Engine.offered`` does it for the snapshots)."""
    return for_seat(templates, engine.host_actions, host)


def players(engine: Engine, doc: TableDoc, state: Any, online: set[str] | None = None) -> list[dict[str, Any]]:
    """The seats as every snapshot of ``doc`` lists them (the same for every
    viewer): names, the host, each seat's public game figures, no-phone
    seats (``paused``: its phone waits to be handed back), and with
    ``online`` (``Presence.present``) whether each is connected."""
    public = engine.public_players(state) if state is not None else {}
    out: list[dict[str, Any]] = []
    shown = acting(doc)
    for s in doc["seats"]:
        p = {"id": s["id"], "name": s["name"], "host": s["id"] == shown, **public.get(s["id"], {})}
        if s.get("phone") is False:
            p["phone"] = False
            if paused(s):
                p["paused"] = True
        if online is not None:
            p["connected"] = s["id"] in online
        out.append(p)
    return out


@dataclass(frozen=True)
class Common:
    """What every seat's snapshot of one version shows alike (``common``):
    built once for a push's snapshots, not once a seat."""

    state: Any
    seats: list[dict[str, Any]]
    viewer: Callable[[str | None], dict[str, Any]] | None
    acting: str
    fair: FairView | None
    evening: dict[str, Any] | None
    #: The draw an undo took back, while it is drawn again (``pending_redraw``).
    redraw: Stashed | None
    #: The server's clock and, per seat the game waits for, from when the host
    #: may step in: None unless the game is playing and waits for someone.
    waits: tuple[float, dict[str, float]] | None


def common(engine: Engine, doc: TableDoc, state: Any = None, online: set[str] | None = None,
           seats: list[dict[str, Any]] | None = None,
           viewer: Callable[[str | None], dict[str, Any]] | None = None,
           stall: StallRule | None = None, linked: Collection[str] = ()) -> Common:
    """``Common`` of ``doc``: ``state``, ``seats`` (``players``) and ``viewer``
    (``engine.viewer(state)``) when the caller has them already; ``linked``:
    the seats whose link of the pending draw is in (``Store.links``)."""
    if doc["state"] is not None and state is None:
        state = atrest.load_state(engine, doc)
    if seats is None:
        seats = players(engine, doc, state, online)
    if viewer is None and state is not None:
        viewer = engine.viewer(state)
    waits = None
    if doc["status"] == "playing" and doc.get("waits"):
        waits = (round(stalls.clock(), 3), (stall or StallRule()).step_in(doc, online))
    fair = fair_public(doc, linked)
    if fair is not None:
        # The labels phones seal under now (issue 38): the same for every viewer.
        fair["to_seal"] = to_seal(engine, doc, state)
    return Common(state, seats, viewer, acting(doc), fair, evening.lobby(doc),
                  pending_redraw(engine, doc, state), waits)


def snapshot(engine: Engine, doc: TableDoc, player: str | None, state: Any = None,
             online: set[str] | None = None, seats: list[dict[str, Any]] | None = None,
             viewer: Callable[[str | None], dict[str, Any]] | None = None,
             stall: StallRule | None = None, shared: Common | None = None,
             linked: Collection[str] = ()) -> Snapshot:
    """What ``player`` (None: spectator) sees of the table. ``state`` may be
    passed pre-loaded when building many snapshots of one version, with
    ``seats`` (``players``) and ``viewer`` (``engine.viewer(state)``) built once
    for them all, or all of that and more as ``shared`` (``common``).
    ``online``: the seats with a live socket (``Presence.present``);
    each player then carries ``connected``; ``stall``: when the host may
    step in for a seat the game waits for (the default rule when None)."""
    c = shared or common(engine, doc, state, online, seats, viewer, stall, linked)
    state, seats = c.state, c.seats
    seat = None
    if player is not None:
        for s in doc["seats"]:
            if s["id"] == player:
                seat = s
                break
    sealed = bool(seat and seat.get("sealed"))
    # A sealed seat sees what a spectator sees: its own view and its legal
    # moves would both reveal its secrets to whoever holds the new token. So
    # does a paused one, whose moves the host enters, until its owner is back.
    shut = seat is not None and hidden(seat)
    # A sealed seat is offered nothing the pipeline would refuse it, host tools included.
    host = holds(doc, player) and not shut
    legal: list[Action] = []
    if state is not None and c.viewer is not None:
        view = c.viewer(None if shut else player)
        if player is not None and not shut:
            legal = engine.offered(state, player, host)
            kept = c.redraw
            if kept is not None:
                # Only the draw an undo took back, drawn again (change.redraw_first).
                legal = [a for a in legal if a.get("type") == kept["type"]
                         and (kept["type"] not in engine.private_draws or kept["player"] == player)]
                if kept["type"] in engine.open_redraws:
                    legal = [{"type": kept["type"]}]  # the returned die: anyone seated rolls it
            if doc.get("fair", {}).get("pending"):
                legal = []  # a draw waits for the phones' links: no game action meanwhile (draws.py)
    else:
        view = {}
    legal += offers(Seen(doc, seat, host, sealed))
    snap: Snapshot = {
        "table": doc["id"], "game": doc["game"], "code": doc["code"], "version": doc["version"],
        "status": doc["status"], "host": c.acting, "me": player, "options": doc["options"],
        "min_players": doc["min_players"], "max_players": doc["max_players"],
        "round": doc["round"], "players": seats, "view": view, "legal": legal,
    }
    if "stand_in" in doc:
        snap["host_away"] = doc["host"]
    next_game = c.evening
    if next_game is not None:
        snap["evening"] = next_game
    if host and doc["status"] != "lobby":
        # What the undo confirm names: the action it takes back (not merely the
        # newest line of history), or why there is none.
        target = doc["undoable"][-1] if doc["undoable"] else None
        snap["undo"] = {"target": target, "sealed": target is None and "sealed_at" in doc}
    if seat is not None:
        snap["sealed"] = sealed
        snap["pin"] = "pin" in seat
        # A sealed or paused phone may enter for nobody (the pipeline refuses it).
        snap["proxies"] = {} if shut else proxies(engine, doc, player, state)
        if paused(seat):
            snap["paused"] = "phoneless"
        elif seat.get("back"):
            snap["paused"] = "handed_back"
    snap["proxies_who"] = doc.get("proxies", "host")
    if c.fair is not None:
        made = doc["fair"].get("made")
        if made is not None and made["player"] == player and not shut:
            # The events of this seat's own last draw, made by others' links (draws.py):
            # its phone shows them as its action's answer (a private card is its own;
            # not to a sealed or paused token, which sees what a spectator sees).
            snap["fair"] = {**c.fair, "made": {"draw": made["draw"], "version": made["v"], "events": made["events"]}}
        else:
            snap["fair"] = c.fair
    snap["reminder"] = doc.get("reminder", 0)
    if c.waits is not None:
        now, step_in = c.waits
        snap["waiting_since"] = doc["waits"]
        snap["now"] = now
        snap["step_in"] = step_in
        if host:
            # A skip the engine would take waits for its seat's time: the host's
            # phone offers it from step_in on (held meanwhile), never before.
            held = [a for a in legal if a["type"] == "skip" and not step_in.get(a.get("seat", ""), now + 1) <= now]
            if held:
                snap["legal"] = [a for a in legal if a not in held]
                snap["held"] = [a for a in held if a.get("seat") in step_in]
    if doc.get("reopened"):
        snap["reopened"] = doc["reopened"]
    step = doc.get("step")
    if step is not None and step["v"] == doc["version"]:
        snap["step"] = step
    return snap


def proxies(engine: Engine, doc: TableDoc, player: str | None, state: Any) -> dict[str, list[Action]]:
    """Per seat without a phone that ``player`` may act for (``as``), its legal
    templates as a guest's (``as`` never carries host powers). Never its view:
    the engine's templates for a paper seat hold public choices only."""
    if player is None or (not holds(doc, player) and doc.get("proxies") != "all"):
        return {}
    out: dict[str, list[Action]] = {}
    for s in doc["seats"]:
        if s.get("phone") is False:
            out[s["id"]] = engine.offered(state, s["id"], False) if state is not None else []
    return out


class Views:
    """The snapshots a service gives: each seat's view of a document, with the
    table's presence read from the store when the caller has none, and a
    pending draw's links read beside the document (``Store.links``)."""

    def __init__(self, store: Store, engine: Callable[[str], Engine], stall: StallRule) -> None:
        self.store, self.engine, self.stall = store, engine, stall

    def snapshot(self, doc: TableDoc, player: str | None, state: Any = None,
                 online: set[str] | None = None, shared: Common | None = None) -> Snapshot:
        """``online`` defaults to the table's presence, read from the store;
        ``shared``: what every seat's snapshot of this document shows alike
        (``common``), when built once for many."""
        if online is None:
            online = self.store.presence.present(doc["id"])
        return snapshot(self.engine(doc["game"]), doc, player, state, online, stall=self.stall, shared=shared,
                        linked=self.linked(doc) if shared is None else ())

    def common(self, doc: TableDoc, state: Any, online: set[str]) -> Common:
        """What every seat's snapshot of ``doc`` shares (``common``)."""
        return common(self.engine(doc["game"]), doc, state, online, stall=self.stall, linked=self.linked(doc))

    def linked(self, doc: TableDoc) -> list[str]:
        """The seats whose link of ``doc``'s pending draw is in: read beside
        the document only while a draw is pending."""
        p = pending(doc)
        if p is None:
            return []
        fields = self.store.links(doc["id"])
        return [s for s in p["contributors"] if fields.get("_draw") == p["draw"] and s in fields]
