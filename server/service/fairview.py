"""What the phones and the checkers see of a table's fair records
(``fairness.py`` keeps them): the snapshot's part (``public``), a pending
draw as the ``draw`` frame and the snapshot show it (``pending_view``), and
the proof (``proof``: ``GET /api/tables/<id>/proof``). Reads only: never a
secret, a salt or a sealed value before its reveal."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from server.fairdoc import FairDoc, FairView, PendingDraw
from server.model import LogEntry, TableDoc
from tablemate_verify import ScopeRecord, SealRecord, publish


def public(doc: TableDoc, linked: Collection[str] = ()) -> FairView | None:
    """What every phone sees: the open scopes' commitments and who seeded
    them, the sealed choices' hashes. Never a secret, a salt or a value.
    ``linked``: the seats whose link of the pending draw is in (kept beside
    the document: ``Store.links``)."""
    fair = doc.get("fair")
    if fair is None:
        return None
    view: FairView = {
        "open": [{"scope": s["label"], "commitment": s["commitment"],
                  "seeded": [e["seat"] for e in s["seeds"]]} for s in fair["scopes"]],
        "sealed": [{"seal": s["label"], "hash": s["hash"]} for s in fair["seals"] if not s.get("retracted")],
        "revealed": fair["revealed"],
    }
    view.update(_chains_view(fair, linked))  # type: ignore[typeddict-item]
    return view


def _chains_view(fair: FairDoc, linked: Collection[str]) -> dict[str, Any]:
    """Every seat's chain (how far it went, so a phone can tell its own state
    from the table's), and the pending draw (``draws.py``): whom it waits for,
    since when, and how long the table waits."""
    out: dict[str, Any] = {}
    if fair.get("chains"):
        out["chains"] = {s: {"anchor": c["anchor"], "length": c["length"], "used": c["k"], "last": c["last"]}
                         for s, c in fair["chains"].items()}
    p = fair.get("pending")
    if p is not None:
        out["pending"] = pending_view(p, linked)
    return out


def pending_view(p: PendingDraw, linked: Collection[str] = ()) -> dict[str, Any]:
    """The pending draw as the phones see it (the snapshot's ``fair.pending``,
    the ``draw`` frame's ``pending``): whom it waits for, since when, and
    how long the table waits."""
    given = set(linked) | {e["seat"] for e in p["links"]}
    view = {"draw": p["draw"], "scope": p["scope"], "index": p["index"],
            "action": p["action"]["type"], "player": p["player"],
            "contributors": p["contributors"], "at": p["at"], "wait": p["wait"],
            "waiting": [s for s in p["contributors"] if s not in given]}
    if p.get("opened"):
        # A scope this draw opened: its commitment public before any link.
        view["opened"] = [{"scope": x["label"], "commitment": x["commitment"]} for x in p.get("opened", [])]
    return view


def proof(doc: TableDoc, entries: Iterable[LogEntry]) -> dict[str, Any]:
    """The table's proof (``tablemate_verify.publish``): every scope and seal
    revealed so far, from the log, then those still open. Each carries the
    history group it belongs to (``game``, ``round``), and a seal whose seat
    and kind (``sheet``, ``vote``), for the phones' marks (checkers ignore them)."""
    scopes: dict[str, ScopeRecord] = {}
    seals: dict[str, SealRecord] = {}
    # The table as of ``doc``'s version: the log is read after ``doc``, and a
    # change logged in between (a seed, a reveal) would be in one part and
    # not the other (a seed in the seed log but not in its open scope).
    entries = [e for e in entries if e["v"] <= doc["version"]]
    for e in entries:
        for s in e.get("fair", {}).get("scopes", ()):
            scopes[s["label"]] = s
        for x in e.get("fair", {}).get("seals", ()):
            seals[x["label"]] = x
    fair = doc.get("fair")
    if fair is not None:
        # What the log revealed by then is no longer in ``doc``'s open part.
        for s in fair["scopes"]:
            scopes.setdefault(s["label"], s)
        for x in fair["seals"]:
            seals.setdefault(x["label"], x)
    body = publish(doc["id"], doc["game"], scopes.values(), seals.values())
    # The version this proof is of: a phone holds its own seed only to a proof
    # read after the table accepted it (one read before cannot hold it).
    body["version"] = doc["version"]
    # Every seed action as the log has it (who, which scope, which version):
    # a checker holds each scope's seeds to them (tablemate_verify.rules).
    body["seeded"] = [{"scope": e["action"]["scope"], "seat": e["by"], "seed": e["action"].get("seed"), "v": e["v"]}
                      for e in entries if e["kind"] == "platform" and e["action"].get("type") == "seed"]
    # Each game's start as the log has it: the public facts (seats, options)
    # a checker rebuilds every draw's inputs from (tablemate_verify.schedule).
    body["starts"] = [{"game": n, "players": len(e["action"]["players"]), "options": e["action"]["options"]}
                      for n, e in enumerate((e for e in entries if e["action"].get("type") == "start"
                                             and e["kind"] == "platform"), start=1)]
    for item in body["scopes"]:
        item.update(_where(item["label"]))
    for item in body["sealed"]:
        where = _where(item["label"])
        parts = item["label"].split("/")
        item.update(where, kind=parts[5] if len(parts) > 6 else None, seat=parts[-1])
    return body


def _where(lab: str) -> dict[str, int]:
    """``t/<table>/g<game>/<kind>/<round>/...`` → its history group (the setup: round 0)."""
    parts = lab.split("/")
    game = int(parts[2][1:]) if len(parts) > 2 and parts[2][1:].isdigit() else 1
    rnd = parts[4].split(".")[0] if len(parts) > 4 else ""
    return {"game": game, "round": int(rnd) if rnd.isdigit() else 0}
