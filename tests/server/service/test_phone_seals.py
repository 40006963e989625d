"""King Up votes sealed on the phone (issue 38), through the API: the phone sends
only the hash under the label the snapshot offers; the store holds no vote value
until the phones open theirs; a vote sent in the open is refused and changes
nothing, unless its casting reveals the election at once; an opening that does
not match is refused and changes nothing; a retracted seal always gets a fresh label; a seal whose phone
is gone is withdrawn (never seen or set) and the seat votes again."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis

from tablemate_verify import check, seal_hash
from tablemate_verify.rules import verify
from tests.sealed_votes import VoteSeals
from tests.server.conftest import Phone, open_table
from tests.server.service.test_fair_table import tamper
from tests.server.service.test_phoneless import doc_of, refused


@pytest.fixture
def phones(client: Any) -> list[Phone]:
    table = open_table(client, joiners=2, game="kingup")
    assert table[0].act("start").status_code == 200
    return table


def ok(r: Any) -> dict[str, Any]:
    assert r.status_code == 200, r.json
    return dict(r.json)


def to_vote(phones: list[Phone]) -> None:
    """Places and moves at random until a King is nominated."""
    rng = random.Random(3)
    for _ in range(400):
        snaps = [p.get().json for p in phones]
        if snaps[0]["view"].get("phase") == "vote":
            return
        for p, snap in zip(phones, snaps, strict=True):
            moves = [a for a in snap["legal"] if a["type"] in ("place", "move")]
            if moves:
                a = rng.choice(moves)
                ok(p.act(a["type"], **{k: v for k, v in a.items() if k != "type"}))
                break
    raise AssertionError("no election came")


class Kept:
    """What a phone keeps until the reveal: its label, value and salt."""

    def __init__(self, phone: Phone, vote: str, salt: str) -> None:
        self.phone, self.vote, self.salt = phone, vote, salt
        self.label = phone.get().json["fair"]["to_seal"][phone.id]
        self.hash = seal_hash(self.label, salt, {"vote": vote})

    def seal(self) -> Any:
        return self.phone.act("vote", vote="sealed", hash=self.hash, label=self.label)

    def open(self) -> Any:
        return self.phone.act("open_vote", vote=self.vote, salt=self.salt)


def salt(i: int) -> str:
    return f"{i:02x}" * 32


def store_text(redis_url: str, table: str) -> str:
    """Every key of the table as a store reader reads it."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    out = []
    for key in r.scan_iter(f"tm:{{{table}}}:*"):
        kind = r.type(key)
        if kind == "string":
            out.append(str(r.get(key)))
        elif kind == "hash":
            out.append(str(r.hgetall(key)))
        elif kind == "list":
            out.append(str(r.lrange(key, 0, -1)))
        elif kind == "zset":
            out.append(str(r.zrange(key, 0, -1, withscores=True)))
        elif kind == "set":
            out.append(str(r.smembers(key)))
        elif kind == "stream":
            out.append(str(r.xrange(key)))
        else:
            raise AssertionError(f"{key}: a key of a kind this reader does not read ({kind})")
    assert out, "the table has keys"
    return "\n".join(out)


def test_a_store_reader_finds_no_vote_value_until_the_phones_open_theirs(phones: list[Phone],
                                                                        redis_url: str) -> None:
    to_vote(phones)
    kept = [Kept(p, v, salt(i + 1)) for i, (p, v) in enumerate(zip(phones, ["yes", "no", "yes"], strict=True))]
    assert [k.label.rsplit("/", 1)[1] for k in kept] == ["p1", "p2", "p3"]
    for k in kept[:2]:
        ok(k.seal())
    text = store_text(redis_url, phones[0].table)
    assert '"vote": "sealed"' in text or '"vote":"sealed"' in text  # the reader does read the votes
    for k in kept:
        assert k.salt not in text
    assert '"no"' not in text and '"yes"' not in text, "a vote value in the store before its reveal"
    ok(kept[2].seal())
    # Every vote is in: still no value in the store, the phones are asked to open.
    snap = phones[0].get().json
    assert snap["view"]["election"]["opening"] == ["p1", "p2", "p3"]
    assert [a["type"] for a in snap["legal"] if a["type"] == "open_vote"] == ["open_vote"]
    assert '"no"' not in store_text(redis_url, phones[0].table)
    # An opening that does not match: refused, stable code, the table unchanged.
    v = phones[0].get().json["version"]
    bad = phones[1].act("open_vote", vote="yes", salt=kept[1].salt)
    assert bad.status_code == 400 and bad.json["error"]["code"] == "opening_mismatch", bad.json
    bad = phones[1].act("open_vote", vote="no", salt=salt(9))
    assert bad.status_code == 400 and bad.json["error"]["code"] == "opening_mismatch", bad.json
    assert phones[0].get().json["version"] == v
    for k in kept[:2]:
        ok(k.open())
    # An opened value stays hidden from the other phones until the reveal.
    assert "'no'" not in str(phones[0].get().json["view"]["election"])
    events = ok(kept[2].open())["events"]
    revealed = next(e for e in events if e["type"] == "votes_revealed")
    assert revealed["votes"] == {"p1": "yes", "p2": "no", "p3": "yes"}
    proof = phones[0].client.get(f"/api/tables/{phones[0].table}/proof").json
    seals = {x["label"]: x for x in proof["sealed"]}
    for k in kept:
        assert seals[k.label] == {**seals[k.label], "hash": k.hash, "salt": k.salt, "value": {"vote": k.vote}}
    report = check(proof)
    assert report.ok and sum(line.code == "seal_ok" for line in report.lines) == 3, report.first_mismatch
    assert verify(proof).ok


def test_a_vote_sent_as_it_is_is_refused_and_the_table_stays_as_it_was(app: Any, phones: list[Phone],
                                                                     redis_url: str) -> None:
    to_vote(phones)
    host, p2, p3 = phones
    before = doc_of(app, host.table)
    for vote in ("yes", "no"):
        refused(app, host, p2.act("vote", vote=vote), 409, "seal_required", before)
    assert "seal_required" not in str(host.client.get(f"/api/tables/{host.table}/history").json)
    assert '"no"' not in store_text(redis_url, host.table)
    # Sealed, the same seat's vote goes in; the last vote, with a seal shut, must be sealed too
    # (its casting does not reveal the election: the phones open theirs first).
    seals = VoteSeals()
    assert p2.vote("no", seals).status_code == 200
    r = host.act("skip", seat=p3.id)
    assert r.status_code == 200 and r.json["events"][0]["type"] == "seat_skipped", r.json
    refused(app, host, host.act("vote", vote="yes"), 409, "seal_required", doc_of(app, host.table))
    assert host.vote("yes", seals).status_code == 200
    assert host.get().json["view"]["election"]["opening"] == [host.id, p2.id]


def test_the_last_vote_may_go_as_it_is_when_its_casting_reveals_the_election(phones: list[Phone]) -> None:
    to_vote(phones)
    host, p2, p3 = phones
    for seat in (p2, p3):  # the host goes on without them: each counts as Yes, in the open
        assert host.act("skip", seat=seat.id).status_code == 200
    r = ok(host.act("vote", vote="no"))
    revealed = next(e for e in r["events"] if e["type"] == "votes_revealed")
    assert revealed["votes"] == {"p1": "no", "p2": "yes", "p3": "yes"} and revealed["result"] == "eliminated"


def test_a_seal_under_another_label_or_without_its_hash_is_refused(phones: list[Phone]) -> None:
    to_vote(phones)
    k = Kept(phones[1], "yes", salt(1))
    v = phones[0].get().json["version"]
    wrong = phones[1].act("vote", vote="sealed", hash=k.hash, label=k.label.replace("/p2", "/p3"))
    assert wrong.status_code == 409 and wrong.json["error"]["code"] == "wrong_seal_label", wrong.json
    bare = phones[1].act("vote", vote="sealed")
    assert bare.status_code == 400 and bare.json["error"]["code"] == "invalid_payload", bare.json
    upper = phones[1].act("vote", vote="sealed", hash=k.hash.upper(), label=k.label)
    assert upper.status_code == 400, upper.json
    stray = phones[1].act("vote", vote="yes", hash=k.hash, label=k.label)
    assert stray.status_code == 400 and stray.json["error"]["code"] == "invalid_payload", stray.json
    early = phones[1].act("open_vote", vote="yes", salt=k.salt)
    assert early.status_code == 409 and early.json["error"]["code"] == "wrong_phase", early.json
    assert phones[0].get().json["version"] == v


def test_an_undone_seal_is_retracted_and_the_vote_again_gets_a_fresh_label(phones: list[Phone]) -> None:
    to_vote(phones)
    host = phones[0]
    first = Kept(phones[1], "yes", salt(1))
    ok(first.seal())
    assert host.get().json["fair"]["sealed"][-1] == {"seal": first.label, "hash": first.hash}
    ok(host.act("undo"))
    # The same vote again under the old label is refused: the label is spent.
    again = phones[1].act("vote", vote="sealed", hash=first.hash, label=first.label)
    assert again.status_code == 409 and again.json["error"]["code"] == "wrong_seal_label"
    fresh = Kept(phones[1], "yes", salt(2))
    assert fresh.label == first.label + ".2"
    ok(fresh.seal())
    others = [Kept(phones[0], "yes", salt(3)), Kept(phones[2], "yes", salt(4))]
    for k in others:
        ok(k.seal())
    for k in [fresh, *others]:
        ok(k.open())
    proof = host.client.get(f"/api/tables/{host.table}/proof").json
    seals = {x["label"]: x for x in proof["sealed"]}
    assert seals[first.label] == {**seals[first.label], "salt": None, "retracted": True}
    assert "value" not in seals[first.label]
    assert seals[fresh.label]["value"] == {"vote": "yes"}
    assert check(proof).ok


def test_a_phone_gone_at_the_reveal_is_withdrawn_and_votes_again(phones: list[Phone]) -> None:
    to_vote(phones)
    host = phones[0]
    kept = [Kept(p, "yes", salt(i + 1)) for i, p in enumerate(phones)]
    for k in kept:
        ok(k.seal())
    ok(kept[0].open())
    ok(kept[2].open())
    assert host.get().json["view"]["waiting"] == ["p2"]
    # The host cannot open it (it has neither value nor salt) nor set it: skip withdraws it.
    events = ok(host.act("skip", seat="p2"))["events"]
    assert events == [{"type": "vote_withdrawn", "seat": "p2"}]
    assert host.get().json["fair"]["to_seal"] == {"p2": kept[1].label + ".2"}
    late = kept[1].open()  # the phone back with its old opening: too late, that seal is shut
    assert late.status_code == 409, late.json
    again = Kept(phones[1], "no", salt(7))
    ok(again.seal())
    events = ok(again.open())["events"]
    assert next(e for e in events if e["type"] == "votes_revealed")["votes"]["p2"] == "no"
    proof = host.client.get(f"/api/tables/{host.table}/proof").json
    seals = {x["label"]: x for x in proof["sealed"]}
    assert seals[kept[1].label]["retracted"] is True and seals[kept[1].label]["salt"] is None
    assert check(proof).ok


def test_a_table_from_before_the_seals_still_takes_votes_as_they_are(app: Any, phones: list[Phone]) -> None:
    """No ``fair`` (a table created before the fair records): no label is offered,
    nothing can be sealed, so a vote in the open is the only vote there is."""
    to_vote(phones)
    store = app.extensions["tablemate"].store
    tamper(store, phones[0].table, lambda doc: doc.pop("fair"))
    snap = phones[1].get().json
    assert "fair" not in snap or not (snap["fair"] or {}).get("to_seal"), snap.get("fair")
    seals = VoteSeals()
    assert seals.vote(snap, phones[1].id, "no") == {"type": "vote", "vote": "no"}
    for phone, vote in zip(phones, ["yes", "no", "yes"], strict=True):
        r = ok(phone.act("vote", vote=vote))
    revealed = next(e for e in r["events"] if e["type"] == "votes_revealed")
    assert revealed["votes"] == {"p1": "yes", "p2": "no", "p3": "yes"}
