"""Draws nobody can foresee or grind (issue 38, ``server/service/draws.py``):
phones anchor hash chains, a roll waits for every live phone's next link,
the outcome is derived from the links, and the proof holds each link to its
chain."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engines import registry
from server.config import Limits
from server.errors import ServiceError
from server.service import Tables
from server.store import Store
from tablemate_verify import OutcomeRng, check
from tablemate_verify.chain import make_chain
from tablemate_verify.rules import verify

_ids = itertools.count()


def tables_with(store: Store, wait: float) -> Tables:
    return Tables(store, registry.get, rng=random.Random(3), limits=Limits(draw_wait=wait))


@pytest.fixture
def tables(store: Store) -> Tables:
    return tables_with(store, 3600.0)  # draw_now never in time unless a test says so


def act(tables: Tables, tid: str, token: str, atype: str, **payload: Any) -> dict[str, Any]:
    return dict(tables.act(tid, token, {"action": {"type": atype, **payload}, "request_id": f"d{next(_ids)}"}))


def refused(code: str, tables: Tables, tid: str, token: str, atype: str, **payload: Any) -> None:
    before = tables.store.load_raw(tid)
    with pytest.raises(ServiceError) as exc:
        act(tables, tid, token, atype, **payload)
    assert exc.value.code == code, exc.value.envelope()
    assert tables.store.load_raw(tid) == before  # the table exactly as it was


class Phone:
    """A seat's phone as the web client keeps it: its chain, the links revealed."""

    def __init__(self, seat: str, token: str, top: str) -> None:
        self.seat, self.token = seat, token
        self.chain = make_chain(64, top)
        self.used = 0

    def next_link(self) -> str:
        return self.chain[self.used + 1]

    def answer(self, tables: Tables, tid: str, draw: int) -> dict[str, Any]:
        out = act(tables, tid, self.token, "link", draw=draw, link=self.next_link())
        self.used += 1
        return out


def seated(tables: Tables, n: int = 3) -> tuple[str, list[Phone]]:
    doc, host = tables.create({"game": "camelup", "name": "Host", "options": {}})
    tokens = [host] + [tables.join(doc["id"], {"name": f"P{i + 2}"})[1] for i in range(n - 1)]
    phones = [Phone(f"p{i + 1}", t, f"{i + 1:02x}" * 32) for i, t in enumerate(tokens)]
    return doc["id"], phones


def anchor_all(tables: Tables, tid: str, phones: list[Phone], live: bool = True) -> None:
    for p in phones:
        act(tables, tid, p.token, "anchor", anchor=p.chain[0], length=64)
        if live:
            tables.store.presence.touch(tid, f"{p.seat}/s")


def snap(tables: Tables, tid: str, seat: str = "p1") -> dict[str, Any]:
    return dict(tables.snapshot(tables.load(tid), seat))


def turn(tables: Tables, tid: str, phones: list[Phone]) -> Phone:
    waiting = snap(tables, tid)["view"]["waiting"]
    return phones[int(waiting[0][1:]) - 1] if waiting else phones[0]


def roll(tables: Tables, tid: str, phones: list[Phone], answer: list[Phone] | None = None) -> dict[str, Any]:
    """The turn's seat rolls; every phone (or ``answer``) sends its link."""
    out = act(tables, tid, turn(tables, tid, phones).token, "pyramid")
    assert [e["type"] for e in out["events"]] == ["draw_pending"]
    draw = out["events"][0]["draw"]
    last: dict[str, Any] = {}
    for p in answer if answer is not None else phones:
        last = p.answer(tables, tid, draw)
    return next(e for e in last["events"] if e["type"] == "die_rolled")


def test_a_roll_waits_for_every_live_phones_link_and_is_derived_from_them(tables: Tables) -> None:
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    roll(tables, tid, phones)  # so there is a roll to undo
    roller = turn(tables, tid, phones)
    out = act(tables, tid, roller.token, "pyramid")
    draw = out["events"][0]["draw"]
    pending = snap(tables, tid, "p2")["fair"]["pending"]
    assert pending["waiting"] == ["p1", "p2", "p3"] and pending["action"] == "pyramid"
    assert pending["player"] == roller.seat
    # Nothing else moves the game meanwhile, nor rolls twice.
    refused("draw_pending", tables, tid, roller.token, "pyramid")
    refused("draw_pending", tables, tid, phones[0].token, "undo")
    links = [(p.seat, p.next_link()) for p in phones]
    phones[0].answer(tables, tid, draw)
    phones[1].answer(tables, tid, draw)
    assert snap(tables, tid)["fair"]["pending"]["waiting"] == ["p3"]
    done = phones[2].answer(tables, tid, draw)
    rolled = next(e for e in done["events"] if e["type"] == "die_rolled")
    assert "pending" not in snap(tables, tid)["fair"]
    # Logged as the roller's: the history and undo see the roller's roll.
    assert tables.history(tid)["rounds"][-1]["entries"][-1]["by"] == roller.seat
    doc = tables.load(tid)
    scope = next(s for s in doc["fair"]["scopes"] if s["label"].endswith("/leg/1"))
    rng = OutcomeRng.of(scope["secret"], scope["label"], [], 1, links)
    first = scope["outcomes"][0]["draws"][0]["result"]
    assert rng.choice([d for d in ["blue", "green", "yellow", "red", "purple", "grey"] if d != first]) == rolled["die"]
    assert scope["outcomes"][1]["links"] == [{"seat": p.seat, "link": p.chain[2], "anchor": p.chain[0]}
                                             for p in phones]


def test_links_must_be_the_next_of_the_chain(tables: Tables) -> None:
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    draw = act(tables, tid, turn(tables, tid, phones).token, "pyramid")["events"][0]["draw"]
    p1 = phones[0]
    refused("link_mismatch", tables, tid, p1.token, "link", draw=draw, link=p1.chain[2])  # skips one
    refused("link_mismatch", tables, tid, p1.token, "link", draw=draw, link=p1.chain[0])  # the anchor
    refused("draw_over", tables, tid, p1.token, "link", draw=draw + 1, link=p1.chain[1])
    p1.answer(tables, tid, draw)
    refused("link_given", tables, tid, p1.token, "link", draw=draw, link=p1.chain[2])
    refused("anchor_known", tables, tid, p1.token, "anchor", anchor=p1.chain[0], length=64)


def test_a_phone_that_does_not_answer_is_left_out_after_the_wait(store: Store) -> None:
    tables = tables_with(store, 0.0)
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    draw = act(tables, tid, turn(tables, tid, phones).token, "pyramid")["events"][0]["draw"]
    phones[0].answer(tables, tid, draw)
    out = act(tables, tid, phones[1].token, "draw_now", draw=draw)
    assert any(e["type"] == "die_rolled" for e in out["events"])
    # p3's link comes too late: refused, not counted.
    refused("draw_over", tables, tid, phones[2].token, "link", draw=draw, link=phones[2].next_link())
    doc = tables.load(tid)
    scope = next(s for s in doc["fair"]["scopes"] if s["label"].endswith("/leg/1"))
    assert [e["seat"] for e in scope["outcomes"][0]["links"]] == ["p1"]


def test_draw_now_waits_for_the_wait(tables: Tables) -> None:
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    draw = act(tables, tid, turn(tables, tid, phones).token, "pyramid")["events"][0]["draw"]
    refused("draw_wait", tables, tid, phones[1].token, "draw_now", draw=draw)


def test_without_a_live_phone_the_roll_is_at_once_and_server_only(tables: Tables) -> None:
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones, live=False)
    out = act(tables, tid, turn(tables, tid, phones).token, "pyramid")
    assert any(e["type"] == "die_rolled" for e in out["events"])
    scope = next(s for s in tables.load(tid)["fair"]["scopes"] if s["label"].endswith("/leg/1"))
    assert scope["outcomes"][0]["links"] == []


def test_a_whole_leg_of_links_with_an_undo_checks_everywhere(tables: Tables) -> None:
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    first = roll(tables, tid, phones)
    act(tables, tid, phones[0].token, "undo")
    # The undone die comes back as it was, with no new link (nothing drawn anew).
    again = act(tables, tid, turn(tables, tid, phones).token, "pyramid")
    back = next(e for e in again["events"] if e["type"] == "die_rolled")
    assert (back["die"], back["value"]) == (first["die"], first["value"])
    for _ in range(4):
        roll(tables, tid, phones)
    # Leg 2 opens on the next roll: leg 1 is revealed.
    proof = tables.proof(tid)
    leg = next(s for s in proof["scopes"] if s["label"].endswith("/leg/1"))
    assert leg["secret"] and [c["seat"] for c in leg["chains"]] == ["p1", "p2", "p3"]
    report = check(proof)
    assert report.ok, report.first_mismatch
    codes = [line.code for line in report.lines]
    assert codes.count("outcome_ok") >= 5 and "links_ok" in codes
    full = verify(proof)
    assert full.ok, full.first_mismatch
    # A server that leaves one phone's link out of a roll and re-derives it:
    # the phone's next link then skips one, and the check says so.
    o = leg["outcomes"][2]
    o["links"] = [e for e in o["links"] if e["seat"] != "p2"]
    codes = [(line.code, line.where.get("index")) for line in check(proof).lines if line.status == "mismatch"]
    assert ("link_mismatch", 3) in codes


def test_a_store_reader_cannot_compute_the_roll_before_the_last_link(tables: Tables, store: Store) -> None:
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    draw = act(tables, tid, turn(tables, tid, phones).token, "pyramid")["events"][0]["draw"]
    phones[0].answer(tables, tid, draw)
    phones[1].answer(tables, tid, draw)
    # Everything the store holds, every key, just before the last tap.
    dump = "".join(str(store.r.dump(k)) + str(k) for k in store.r.scan_iter("*"))
    dump += "".join(str(v) for k in store.r.scan_iter("*") if store.r.type(k) == "string"
                    for v in [store.r.get(k)])
    assert phones[0].chain[1] in dump  # what was revealed is there
    assert phones[2].next_link() not in dump  # the missing part is not
    doc = tables.load(tid)
    scope = next(s for s in doc["fair"]["scopes"] if s["label"].endswith("/leg/1"))
    # Every guess of the missing link a reader can make gives its own roll:
    # the roll is not fixed by what the store holds.
    known = [(p.seat, p.chain[1]) for p in phones[:2]]
    dice = ["blue", "green", "yellow", "red", "purple", "grey"]
    guesses = {(OutcomeRng.of(scope["secret"], scope["label"], [], 0, [*known, ("p3", f"{g:064x}")]).choice(dice))
               for g in range(40)}
    assert len(guesses) > 1
    done = phones[2].answer(tables, tid, draw)
    rolled = next(e for e in done["events"] if e["type"] == "die_rolled")
    real = OutcomeRng.of(scope["secret"], scope["label"], [], 0, [*known, ("p3", phones[2].chain[1])])
    assert real.choice(dice) == rolled["die"]


def test_a_phone_that_anchors_anew_mid_draw_still_answers_with_its_old_chain(tables: Tables) -> None:
    """A new anchor counts only for draws announced after it: the pending one
    still takes the old chain's next link, and the proof lists that chain."""
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    draw = act(tables, tid, turn(tables, tid, phones).token, "pyramid")["events"][0]["draw"]
    fresh = make_chain(64, "77" * 32)
    act(tables, tid, phones[2].token, "anchor", anchor=fresh[0], length=64)
    for p in phones:
        p.answer(tables, tid, draw)
    scope = next(s for s in tables.load(tid)["fair"]["scopes"] if s["label"].endswith("/leg/1"))
    assert {c["seat"]: c["anchor"] for c in scope["chains"]}["p3"] == phones[2].chain[0]
    # The next roll takes the new chain's first link.
    phones[2].chain, phones[2].used = fresh, 0
    roll(tables, tid, phones)
    for _ in range(3):
        roll(tables, tid, phones)
    roll(tables, tid, phones)  # leg 2's first roll: leg 1 revealed
    report = verify(tables.proof(tid))
    assert report.ok, report.first_mismatch


def test_a_start_that_draws_waits_for_the_phones_links_and_its_board_checks(tables: Tables) -> None:
    tid, phones = seated(tables)
    anchor_all(tables, tid, phones)  # in the lobby, as the app does
    out = act(tables, tid, phones[0].token, "start")
    assert [e["type"] for e in out["events"]] == ["draw_pending"]
    assert snap(tables, tid)["status"] == "lobby"
    # Nobody joins, leaves or reorders while the start is drawn.
    refused("draw_pending", tables, tid, phones[0].token, "seats", order=["p2", "p1", "p3"])
    with pytest.raises(ServiceError) as exc:
        tables.join(tid, {"name": "Late"})
    assert exc.value.code == "draw_pending"
    draw = out["events"][0]["draw"]
    for p in phones:
        done = p.answer(tables, tid, draw)
    assert [e["type"] for e in done["events"]] == ["started"]
    assert tables.history(tid)["rounds"][-1]["entries"][-1]["by"] == "p1"
    proof = tables.proof(tid)
    setup = next(s for s in proof["scopes"] if s["label"].endswith("/setup"))
    assert setup["secret"] and [e["seat"] for e in setup["outcomes"][0]["links"]] == ["p1", "p2", "p3"]
    report = verify(proof)
    assert report.ok, report.first_mismatch
    assert "outcome_server_only" not in [line.code for line in report.lines]


def test_a_roll_entered_for_a_seat_without_a_phone_is_logged_as_entered_for_it(tables: Tables) -> None:
    doc, host = tables.create({"game": "camelup", "name": "Host", "options": {}})
    tid = doc["id"]
    p2 = tables.join(tid, {"name": "P2"})[1]
    paper = tables.add_phoneless(tid, host, {"name": "Paper", "phone": False})
    phones = [Phone("p1", host, "01" * 32), Phone("p2", p2, "02" * 32)]
    act(tables, tid, host, "start")
    anchor_all(tables, tid, phones)
    for _ in range(3):  # the paper seat's turn comes within a round
        waiting = snap(tables, tid)["view"]["waiting"][0]
        if waiting == paper:
            break
        roll(tables, tid, phones)
    assert snap(tables, tid)["view"]["waiting"][0] == paper
    out = dict(tables.act(tid, host, {"action": {"type": "pyramid"}, "as": paper, "request_id": f"d{next(_ids)}"}))
    draw = out["events"][0]["draw"]
    for p in phones:
        p.answer(tables, tid, draw)
    line = tables.history(tid)["rounds"][-1]["entries"][-1]
    assert (line["by"], line.get("entered_for")) == ("p1", paper)
    # The host's tap gets the roll as its answer: the paper seat has no token to take it.
    assert snap(tables, tid, "p1")["fair"]["made"]["draw"] == draw
    assert "made" not in snap(tables, tid, "p2")["fair"]


def test_while_a_draw_waits_no_phone_is_offered_a_game_action_and_the_roller_gets_its_events(tables: Tables) -> None:
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    roller = turn(tables, tid, phones)
    draw = act(tables, tid, roller.token, "pyramid")["events"][0]["draw"]
    assert snap(tables, tid, roller.seat)["legal"] == []
    for p in phones:
        done = p.answer(tables, tid, draw)
    rolled = [e for e in done["events"] if e["type"] == "die_rolled"]
    # The roller's phone gets the draw's events as its action's answer; no other seat sees them.
    made = snap(tables, tid, roller.seat)["fair"]["made"]
    assert made["draw"] == draw and [e for e in made["events"] if e["type"] == "die_rolled"] == rolled
    others = [p.seat for p in phones if p.seat != roller.seat]
    assert all("made" not in snap(tables, tid, s)["fair"] for s in others)
    assert "made" not in tables.snapshot(tables.load(tid), None)["fair"]
    assert snap(tables, tid, turn(tables, tid, phones).seat)["legal"]


def test_a_seat_gone_to_paper_is_not_told_its_last_draws_events(tables: Tables) -> None:
    """A paused seat's token sees what a spectator sees: not the events of the
    seat's last draw either (a game whose draw dealt a private card would show
    it to whoever holds that token)."""
    tid, phones = seated(tables)
    act(tables, tid, phones[0].token, "start")
    anchor_all(tables, tid, phones)
    while turn(tables, tid, phones).seat == "p1":   # the host keeps a phone: another seat rolls
        roll(tables, tid, phones)
    roller = turn(tables, tid, phones)
    roll(tables, tid, phones)
    assert "made" in snap(tables, tid, roller.seat)["fair"]
    act(tables, tid, roller.token, "phoneless", player=roller.seat)
    assert "made" not in snap(tables, tid, roller.seat)["fair"]
