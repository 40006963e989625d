"""Checkable dice and sealed choices at a live table (issue 31, phase 2;
``server/service/fairness.py``): scopes opened and revealed as the game goes,
the phones' chain links (issue 38), outcomes derived from them, seals, the
proof, undo, and what a change made in Redis behind the server's back turns
into."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from engines import registry
from server.errors import ServiceError
from server.service import Tables, atrest
from server.store import Store
from server.store.keys import doc_key, log_key
from tablemate_verify import OutcomeRng, check, commitment
from tablemate_verify.chain import make_chain
from tests.sealed_votes import VoteSeals, vote_all
from tests.words import texts

_ids = itertools.count()
#: Each table's phones' chains, as the app keeps them: seat → [chain, links used, token].
CHAINS: dict[str, dict[str, list[Any]]] = {}
TOPS = ["a1" * 32, "b2" * 32, "c3" * 32, "d4" * 32]


def act(tables: Tables, tid: str, token: str, atype: str, **payload: Any) -> dict[str, Any]:
    """The action; a draw it announced is answered by every anchored phone it
    waits for, as the app does, and the draw's own answer returned."""
    out = dict(tables.act(tid, token, {"action": {"type": atype, **payload}, "request_id": f"f{next(_ids)}"}))
    while any(e["type"] == "draw_pending" for e in out["events"]):
        pending = tables.snapshot(tables.load(tid), None)["fair"]["pending"]
        for seat in pending["waiting"]:
            chain = CHAINS[tid][seat]
            chain[1] += 1
            out = dict(tables.act(tid, chain[2], {"action": {"type": "link", "draw": pending["draw"],
                                                             "link": chain[0][chain[1]]}, "request_id": f"f{next(_ids)}"}))
    return out


def refused(code: str, tables: Tables, tid: str, token: str, atype: str, **payload: Any) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        act(tables, tid, token, atype, **payload)
    assert exc.value.code == code, exc.value.envelope()
    return exc.value


def table(tables: Tables, game: str, n: int = 3, options: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    doc, host = tables.create({"game": game, "name": "Host", "options": options or {}})
    tokens = [host] + [tables.join(doc["id"], {"name": f"P{i + 2}"})[1] for i in range(n - 1)]
    return doc["id"], tokens


def fair(tables: Tables, tid: str, seat: str | None = "p1") -> dict[str, Any]:
    out: dict[str, Any] = tables.snapshot(tables.load(tid), seat)["fair"]  # type: ignore[assignment]
    return out


def anchor_all(tables: Tables, tid: str, tokens: list[str], seats: list[int] | None = None) -> None:
    """Every phone (or those of ``seats``) anchors its chain and is live, as the app does."""
    for i in range(len(tokens)) if seats is None else seats:
        seat = f"p{i + 1}"
        chain = make_chain(64, TOPS[i])
        CHAINS.setdefault(tid, {})[seat] = [chain, 0, tokens[i]]
        act(tables, tid, tokens[i], "anchor", anchor=chain[0], length=64)
        tables.store.presence.touch(tid, f"{seat}/s")


def links(tid: str, used: int) -> list[tuple[str, str]]:
    """Every phone's link number ``used`` (from 1)."""
    return [(seat, c[0][used]) for seat, c in CHAINS[tid].items()]


def roll(tables: Tables, tid: str, tokens: list[str]) -> dict[str, Any]:
    """The seat whose turn it is rolls."""
    waiting = tables.snapshot(tables.load(tid), "p1")["view"]["waiting"]
    token = tokens[int(waiting[0][1:]) - 1] if waiting else tokens[0]
    result = act(tables, tid, token, "pyramid")
    return next(e for e in result["events"] if e["type"] == "die_rolled")


def test_a_leg_from_fixed_secrets_and_links_gives_the_expected_dice(tables: Tables, store: Store,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # The table's id is in every label, so in every derivation: fixed too.
    store.r.delete(doc_key("Fixed-table-0001"), log_key("Fixed-table-0001"))
    monkeypatch.setattr("server.service.joining.new_table_id", lambda: "Fixed-table-0001")
    tid, tokens = table(tables, "camelup")
    anchor_all(tables, tid, tokens)  # in the lobby: the starting board is drawn from the links too
    act(tables, tid, tokens[0], "start")
    doc = tables.load(tid)
    leg = doc["fair"]["scopes"][0]
    assert leg["label"] == f"t/{tid}/g1/leg/1"
    rolls = [roll(tables, tid, tokens) for _ in range(5)]
    # Known outcomes: the secret (from the table's seeded generator) and the chains fixed.
    assert [(r["die"], r["value"], r["color"]) for r in rolls] == [
        ("red", 3, None), ("yellow", 2, None), ("blue", 2, None), ("purple", 2, None), ("grey", 2, "black")]
    # Derived afresh from the revealed secret and the phones' links, as any phone does: the same dice.
    proof = tables.proof(tid)
    scope = next(s for s in proof["scopes"] if s["label"].endswith("/leg/1"))
    assert scope["secret"] == leg["secret"] and commitment(leg["secret"]) == scope["commitment"]
    left = ["blue", "green", "yellow", "red", "purple", "grey"]
    for i, r in enumerate(rolls):
        # Link 1 went into the starting board; roll i took link i + 2.
        rng = OutcomeRng.of(scope["secret"], scope["label"], [], i, links(tid, i + 2))
        assert rng.choice(left) == r["die"]
        if r["die"] == "grey":
            assert rng.choice(["white", "black"]) == r["color"]
        assert rng.choice([1, 2, 3]) == r["value"]
        left.remove(r["die"])
    report = check(proof)
    assert report.ok, report.first_mismatch
    codes = [line.code for line in report.lines]
    assert codes.count("outcome_ok") == 1 + 5  # the setup's, the leg's five rolls
    assert "scope_open" in codes and "links_ok" in codes  # leg 2, committed, not revealed


def test_scopes_open_and_reveal_with_the_game(tables: Tables, store: Store) -> None:
    tid, tokens = table(tables, "camelup")
    lobby = fair(tables, tid)
    assert [s["scope"] for s in lobby["open"]] == [f"t/{tid}/g1/setup"] and lobby["revealed"] == 0
    act(tables, tid, tokens[0], "start")
    started = fair(tables, tid)
    assert [s["scope"] for s in started["open"]] == [f"t/{tid}/g1/leg/1"]
    assert started["revealed"] == 1  # the starting board's scope
    for _ in range(5):
        roll(tables, tid, tokens)
    after = fair(tables, tid)
    assert [s["scope"] for s in after["open"]] == [f"t/{tid}/g1/leg/2"] and after["revealed"] == 2
    # The revealed leg left the document for the log entry of the roll that ended it.
    doc = tables.load(tid)
    assert all(s["label"].endswith("/leg/2") for s in doc["fair"]["scopes"])
    revealing = [e for e in store.log(tid) if "fair" in e]
    assert [e["action"]["type"] for e in revealing] == ["start", "pyramid"]
    assert revealing[1]["fair"]["scopes"][0]["label"].endswith("/leg/1")


def test_anchors_are_no_history_line_and_no_budget_and_seeds_are_gone(tables: Tables, store: Store) -> None:
    tid, tokens = table(tables, "camelup")
    setup = fair(tables, tid)["open"][0]["scope"]
    refused("unknown_action", tables, tid, tokens[1], "seed", scope=setup, seed="a1" * 32)
    anchor_all(tables, tid, tokens)
    assert sorted(fair(tables, tid)["chains"]) == ["p1", "p2", "p3"]
    act(tables, tid, tokens[0], "start")
    roll(tables, tid, tokens)
    # Anchors and links are no line of history and no seat's budget.
    doc = tables.load(tid)
    assert "n" not in next(s for s in doc["seats"] if s["id"] == "p2")
    lines = texts(tables.history(tid), "en")
    assert lines and not any("anchor" in t.lower() or "link" in t.lower() for t in lines)


def test_an_undone_roll_comes_back_the_same_even_with_a_phone_anchored_since(tables: Tables) -> None:
    tid, tokens = table(tables, "camelup")
    act(tables, tid, tokens[0], "start")
    anchor_all(tables, tid, tokens, seats=[0])
    first = roll(tables, tid, tokens)
    anchor_all(tables, tid, tokens, seats=[1])
    act(tables, tid, tokens[0], "undo")
    assert roll(tables, tid, tokens) == first
    # p2 anchored after the first roll: a roll at the next index takes its link too.
    roll(tables, tid, tokens)
    scope = tables.load(tid)["fair"]["scopes"][0]
    assert [(o["index"], [e["seat"] for e in o["links"]]) for o in scope["outcomes"]] == [(0, ["p1"]), (1, ["p1", "p2"])]


def tamper(store: Store, tid: str, change: Any, entry: int | None = None) -> None:
    """Changes the stored document (or log entry ``entry``) behind the
    server's back, as someone with the Redis password could."""
    r = store.r
    if entry is None:
        doc = json.loads(r.get(doc_key(tid)))
        change(doc)
        r.set(doc_key(tid), json.dumps(doc))
    else:
        raw = json.loads(r.lindex(log_key(tid), entry))
        change(raw)
        r.lset(log_key(tid), entry, json.dumps(raw))
    # This process's copies of the table (the document, the engine state) go:
    # the next action reads what is stored, as another server's would.
    store.latest.drop(tid)
    store.states.held.pop(tid, None)


def first_mismatch(tables: Tables, tid: str) -> Any:
    report = check(tables.proof(tid))
    assert not report.ok
    return report.first_mismatch


def entry_of(store: Store, tid: str, what: str) -> int:
    """The position in the log of the entry that revealed ``what`` (a label's end)."""
    for i, e in enumerate(store.log(tid)):
        for s in e.get("fair", {}).get("scopes", []) + e.get("fair", {}).get("seals", []):
            if s["label"].endswith(what):
                return i
    raise AssertionError(f"nothing revealed {what}")


def test_a_revealed_roll_changed_in_redis_is_a_mismatch(tables: Tables, store: Store) -> None:
    tid, tokens = table(tables, "camelup")
    act(tables, tid, tokens[0], "start")
    anchor_all(tables, tid, tokens)
    for _ in range(5):
        roll(tables, tid, tokens)
    assert check(tables.proof(tid)).ok

    def other_die(e: dict[str, Any]) -> None:
        draw = e["fair"]["scopes"][0]["outcomes"][2]["draws"][0]
        draw["result"] = next(x for x in draw["items"] if x != draw["result"])

    tamper(store, tid, other_die, entry_of(store, tid, "/leg/1"))
    line = first_mismatch(tables, tid)
    assert (line.code, line.where) == ("draw_mismatch", {"scope": f"t/{tid}/g1/leg/1", "index": 2, "draw": 0})


def test_a_roll_changed_in_redis_before_the_reveal_is_a_mismatch(tables: Tables, store: Store) -> None:
    tid, tokens = table(tables, "camelup")
    act(tables, tid, tokens[0], "start")
    first = roll(tables, tid, tokens)

    def other_value(doc: dict[str, Any]) -> None:
        outcome = doc["fair"]["scopes"][0]["outcomes"][0]
        outcome["fields"]["value"] = first["value"] % 3 + 1
        for d in outcome["draws"]:
            if d.get("field") == "value":
                d["result"] = outcome["fields"]["value"]

    tamper(store, tid, other_value)
    for _ in range(4):
        roll(tables, tid, tokens)
    line = first_mismatch(tables, tid)
    assert line.code == "draw_mismatch" and line.where["index"] == 0


def numbers(tables: Tables, tid: str, seat: str, k: int = 0) -> list[int]:
    """A sheet the rules accept this round (the restriction card allowing)."""
    engine = registry.get("countup")
    assert engine is not None
    state = atrest.load_state(engine, tables.load(tid))
    action = engine.sample(state, seat, {"type": "numbers"}, random.Random(k))
    assert action is not None
    return sorted(action["numbers"])


def sheet_locked(tables: Tables) -> tuple[str, list[str], list[int]]:
    """A Count Up table started with every phone anchored (as in the lobby:
    the setup's cards are checked draws) and p2's sheet locked: the table,
    its tokens and p2's numbers."""
    tid, tokens = table(tables, "countup")
    anchor_all(tables, tid, tokens)
    act(tables, tid, tokens[0], "start")
    mine = numbers(tables, tid, "p2")
    act(tables, tid, tokens[1], "numbers", numbers=mine)
    return tid, tokens, mine


def test_sheets_are_sealed_at_the_lock_and_revealed_with_the_round(tables: Tables, store: Store) -> None:
    tid, tokens, mine = sheet_locked(tables)
    sealed = fair(tables, tid, None)["sealed"]
    assert [s["seal"] for s in sealed] == [f"t/{tid}/g1/round/1/sheet/p2"]
    assert len(sealed[0]["hash"]) == 64
    act(tables, tid, tokens[0], "numbers", numbers=numbers(tables, tid, "p1"))
    act(tables, tid, tokens[2], "numbers", numbers=numbers(tables, tid, "p3"))
    act(tables, tid, tokens[0], "call", until="end")
    assert fair(tables, tid)["sealed"] == []
    proof = tables.proof(tid)
    sheet = next(x for x in proof["sealed"] if x["label"].endswith("/sheet/p2"))
    assert sheet["value"] == {"numbers": mine} and sheet["hash"] == sealed[0]["hash"]
    assert (sheet["kind"], sheet["seat"], sheet["round"], sheet["game"]) == ("sheet", "p2", 1, 1)
    report = check(proof)
    assert report.ok, report.first_mismatch
    assert report.count("ok") >= 3 + 2  # three sheets, the setup's secret and its cards
    # Round 2's cards come from the scope opened at the start, revealed as they are shown.
    act(tables, tid, tokens[0], "next_round")
    proof = tables.proof(tid)
    cards = next(s for s in proof["scopes"] if s["label"].endswith("/round/2"))
    assert cards["secret"] is not None and cards["round"] == 2
    assert check(proof).ok


def test_a_sheet_changed_in_redis_after_its_lock_is_a_mismatch(tables: Tables, store: Store) -> None:
    tid, tokens, mine = sheet_locked(tables)
    other = numbers(tables, tid, "p2", 1)
    assert other != mine

    def rewrite(doc: dict[str, Any]) -> None:
        doc["state"]["seats"][1]["numbers"] = other

    tamper(store, tid, rewrite)
    act(tables, tid, tokens[0], "numbers", numbers=numbers(tables, tid, "p1"))
    act(tables, tid, tokens[2], "numbers", numbers=numbers(tables, tid, "p3"))
    act(tables, tid, tokens[0], "call", until="end")
    line = first_mismatch(tables, tid)
    assert (line.code, line.where) == ("seal_mismatch", {"seal": f"t/{tid}/g1/round/1/sheet/p2"})


def kingup_to_vote(tables: Tables, tid: str, tokens: list[str]) -> dict[str, Any]:
    """Places every character and moves until a King is nominated: the host's snapshot then."""
    rng = random.Random(3)
    for _ in range(400):
        snaps = [tables.snapshot(tables.load(tid), f"p{i + 1}") for i in range(len(tokens))]
        if snaps[0]["view"].get("phase") == "vote":
            return snaps[0]
        for i, snap in enumerate(snaps):
            moves = [a for a in snap["legal"] if a["type"] in ("place", "move")]
            if moves:
                a = rng.choice(moves)
                act(tables, tid, tokens[i], a["type"], **{k: v for k, v in a.items() if k != "type"})
                break
    raise AssertionError("no election came")


def votes(tables: Tables, tid: str, tokens: list[str], cast: dict[str, str], seals: VoteSeals) -> None:
    """Each seat of ``cast`` (``p2`` → ``"yes"``) votes, sealed as the app
    seals it; once every vote is in, the phones open theirs."""

    def send(seat: str, action: dict[str, Any]) -> None:
        act(tables, tid, tokens[int(seat[1:]) - 1], **{("atype" if k == "type" else k): v for k, v in action.items()})

    vote_all(cast, lambda seat: tables.snapshot(tables.load(tid), seat), send, seals)


def test_votes_are_sealed_and_revealed_and_an_undone_vote_gets_a_fresh_label(tables: Tables, store: Store) -> None:
    tid, tokens = table(tables, "kingup", options={"goalCardMode": "deal"})
    act(tables, tid, tokens[0], "start")
    anchor_all(tables, tid, tokens)
    for token in tokens:
        act(tables, tid, token, "draw_goal")
    kingup_to_vote(tables, tid, tokens)
    seals = VoteSeals()
    votes(tables, tid, tokens, {"p2": "yes"}, seals)
    first = fair(tables, tid)["sealed"]
    assert len(first) == 1 and "/vote/" in first[0]["seal"] and first[0]["seal"].endswith("/p2")
    # Undone and cast again, the same or not: always a fresh label (issue 38: a
    # yes/no taken back must not be readable from the labels); the first stays
    # sealed, retracted.
    act(tables, tid, tokens[0], "undo")
    assert fair(tables, tid)["sealed"] == []
    votes(tables, tid, tokens, {"p2": "yes"}, seals)
    same = fair(tables, tid)["sealed"]
    assert [s["seal"] for s in same] == [first[0]["seal"] + ".2"] and same[0]["hash"] != first[0]["hash"]
    act(tables, tid, tokens[0], "undo")
    votes(tables, tid, tokens, {"p2": "no"}, seals)
    again = fair(tables, tid)["sealed"]
    assert [s["seal"] for s in again] == [first[0]["seal"] + ".3"]
    votes(tables, tid, tokens, {"p1": "yes", "p3": "yes"}, seals)
    proof = tables.proof(tid)
    sealed = {x["label"].rsplit("/", 1)[1]: x for x in proof["sealed"]}
    assert sealed["p2.3"]["value"] == {"vote": "no"} and sealed["p1"]["value"] == {"vote": "yes"}
    for taken_back in ("p2", "p2.2"):
        assert sealed[taken_back]["salt"] is None and sealed[taken_back]["retracted"] is True
    report = check(proof)
    assert report.ok, report.first_mismatch
    assert [line.where["seal"] for line in report.lines if line.code == "seal_open"] == [
        first[0]["seal"], first[0]["seal"] + ".2"]


def test_a_vote_changed_in_redis_after_it_was_opened_is_a_mismatch(tables: Tables, store: Store) -> None:
    tid, tokens = table(tables, "kingup")
    act(tables, tid, tokens[0], "start")
    kingup_to_vote(tables, tid, tokens)
    seals = VoteSeals()
    for i, token in enumerate(tokens):
        sealed = seals.vote(tables.snapshot(tables.load(tid), f"p{i + 1}"), f"p{i + 1}", "yes")
        act(tables, tid, token, **{("atype" if k == "type" else k): v for k, v in sealed.items()})
    opening = dict(seals.openings(tables.snapshot(tables.load(tid), "p1")))
    act(tables, tid, tokens[1], "open_vote", vote="yes", salt=opening["p2"]["salt"])

    def flip(doc: dict[str, Any]) -> None:
        doc["state"]["election"]["votes"][1] = "no"

    tamper(store, tid, flip)
    for seat in ("p1", "p3"):
        act(tables, tid, tokens[int(seat[1:]) - 1], "open_vote", vote="yes", salt=opening[seat]["salt"])
    line = first_mismatch(tables, tid)
    assert line.code == "seal_mismatch" and line.where["seal"].endswith("/p2")


def test_dealt_goal_cards_stay_private_until_the_round_is_scored(tables: Tables, store: Store) -> None:
    tid, tokens = table(tables, "kingup", options={"goalCardMode": "deal", "playMode": "score_only"})
    act(tables, tid, tokens[0], "start")
    anchor_all(tables, tid, tokens)
    for token in tokens:
        act(tables, tid, token, "draw_goal")
    proof = tables.proof(tid)
    goals = next(s for s in proof["scopes"] if s["label"].endswith("/round/1/goals"))
    # Open: the dealt cards are private, so the proof shows no draw of them yet.
    assert goals["secret"] is None and [set(o) for o in goals["outcomes"]] == [{"index", "seeds", "v", "links"}] * 3
    assert [len(o["links"]) for o in goals["outcomes"]] == [3, 3, 3]


def test_outcomes_a_test_gives_are_marked_fixed(store: Store) -> None:
    tables = Tables(store, registry.get, fixed_random=True, rng=random.Random(7))
    tid, tokens = table(tables, "camelup")
    act(tables, tid, tokens[0], "start")
    act(tables, tid, tokens[0], "pyramid", die="blue", value=2)
    for _ in range(4):
        roll(tables, tid, tokens)
    scope = next(s for s in tables.proof(tid)["scopes"] if s["label"].endswith("/leg/1"))
    assert scope["outcomes"][0] == {"index": 0, "seeds": 0, "v": scope["outcomes"][0]["v"], "draws": [],
                                    "fields": {"die": "blue", "value": 2}, "fixed": True}
    line = first_mismatch(tables, tid)
    assert line.code == "outcome_fixed" and line.where["index"] == 0
