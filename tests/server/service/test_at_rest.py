"""Count Up sheets encrypted at rest (issue 38, item 2; server/service/atrest.py):
the server must see a sheet before its reveal, the store must not. A store
reader reading every key of a table whose sheets are locked finds none of them;
the game still plays (the count reads them), undo replays them, the reveal
publishes them, and a server without the key cannot read them."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from engines import registry
from server.errors import ServiceError
from server.service import Tables, atrest
from server.store import Store
from server.store.keys import doc_key, log_key
from tablemate_verify import check
from tests.server.service.test_fair_table import act, numbers, table


def every_key(store: Store, tid: str) -> str:
    """Every key of the table as a store reader reads it (strings, lists, hashes)."""
    out = []
    for key in store.r.scan_iter(f"tm:{{{tid}}}:*"):
        kind = store.r.type(key)
        if kind == "string":
            out.append(store.r.get(key))
        elif kind == "list":
            out += store.r.lrange(key, 0, -1)
        elif kind == "hash":
            out.append(json.dumps(store.r.hgetall(key)))
        elif kind == "zset":
            out.append(json.dumps(store.r.zrange(key, 0, -1, withscores=True)))
        else:
            raise AssertionError(f"{key}: a kind this reader does not read ({kind})")
    return "\n".join(map(str, out))


def found(text: str, sheet: list[int]) -> bool:
    """Whether the sheet is in ``text`` as JSON writes a list, with or without spaces."""
    return json.dumps(sheet) in text or json.dumps(sheet, separators=(",", ":")) in text


def test_a_store_reader_finds_no_locked_sheet_and_the_round_still_plays(tables: Tables, store: Store) -> None:
    tid, tokens = table(tables, "countup")
    act(tables, tid, tokens[0], "start")
    sheets = {f"p{i + 1}": numbers(tables, tid, f"p{i + 1}", i) for i in range(3)}
    act(tables, tid, tokens[1], "numbers", numbers=sheets["p2"])
    # Undone and locked again: the replay reads the encrypted log entry.
    act(tables, tid, tokens[0], "undo")
    act(tables, tid, tokens[1], "numbers", numbers=sheets["p2"])
    act(tables, tid, tokens[0], "numbers", numbers=sheets["p1"])
    text = every_key(store, tid)
    assert '"aesgcm"' in text  # the reader does read them: as ciphertext
    for seat in ("p1", "p2"):
        assert not found(text, sheets[seat]), f"{seat}'s sheet in the store in clear before its reveal"
    # The server still sees them: its own phone's view shows each its own sheet.
    snap = tables.snapshot(tables.load(tid), "p2")
    assert snap["view"]["my_numbers"] == sheets["p2"]
    act(tables, tid, tokens[2], "numbers", numbers=sheets["p3"])
    assert not any(found(every_key(store, tid), s) for s in sheets.values())
    act(tables, tid, tokens[0], "call", until="end")
    # Revealed with the round: published, checked, and the salts out of hiding.
    proof = tables.proof(tid)
    seals = {x["label"].rsplit("/", 1)[1]: x for x in proof["sealed"] if "/sheet/" in x["label"]}
    assert {p: seals[p]["value"] for p in ("p1", "p2.2", "p3")} == {
        "p1": {"numbers": sheets["p1"]}, "p2.2": {"numbers": sheets["p2"]}, "p3": {"numbers": sheets["p3"]}}
    assert seals["p2"]["retracted"] is True and seals["p2"]["salt"] is None  # undone: sealed for good
    report = check(proof)
    assert report.ok and report.count("ok") >= 3, report.first_mismatch


def test_a_server_without_the_key_cannot_read_a_sheet(tables: Tables, store: Store,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    tid, tokens = table(tables, "countup")
    act(tables, tid, tokens[0], "start")
    act(tables, tid, tokens[1], "numbers", numbers=numbers(tables, tid, "p2"))
    store.latest.drop(tid)
    other = AESGCM(AESGCM.generate_key(bit_length=256))
    monkeypatch.setattr(atrest, "_aead", lambda: other)
    with pytest.raises(ServiceError) as exc:
        tables.snapshot(tables.load(tid), "p2")
    assert exc.value.code == "sealed_unreadable"


def test_a_ciphertext_moved_to_another_table_does_not_open() -> None:
    sealed = atrest.seal([3, 14, 15, 22, 41], "table-a", "state/seats/*/numbers")
    assert atrest.unseal(sealed, "table-a", "state/seats/*/numbers") == [3, 14, 15, 22, 41]
    with pytest.raises(ServiceError):
        atrest.unseal(sealed, "table-b", "state/seats/*/numbers")
    assert atrest.unseal([1, 2], "table-a", "x") == [1, 2]  # not at rest: as it is


def test_the_shared_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "ab" * 32
    monkeypatch.setenv("TABLEMATE_SEAL_KEY", key)
    atrest._aead.cache_clear()
    try:
        sealed = atrest.seal({"n": 1}, "t", "w")
        atrest._aead.cache_clear()
        assert atrest.unseal(sealed, "t", "w") == {"n": 1}  # another process with the same key
        monkeypatch.setenv("TABLEMATE_SEAL_KEY", "not hex")
        atrest._aead.cache_clear()
        with pytest.raises(RuntimeError):
            atrest.seal(1, "t", "w")
    finally:
        monkeypatch.undo()  # the session's key back (conftest.py), then read again
        atrest._aead.cache_clear()


def test_a_face_down_finish_card_is_not_in_the_store_in_clear(tables: Tables, store: Store) -> None:
    """Camel Up's finish cards: the camel is the seat's secret until the race ends."""
    tid, tokens = table(tables, "camelup")
    act(tables, tid, tokens[0], "start")
    turn = tables.snapshot(tables.load(tid), "p1")["view"]["waiting"][0]
    act(tables, tid, tokens[int(turn[1:]) - 1], "finish_bet", pile="winner", camel="purple")
    doc = json.loads(store.r.get(doc_key(tid)))
    assert set(doc["state"]["winner_pile"]) == {"aesgcm"}
    entries = [json.loads(x) for x in store.r.lrange(log_key(tid), 0, -1)]
    bet = next(e["action"] for e in entries if e["action"]["type"] == "finish_bet")
    assert set(bet["camel"]) == {"aesgcm"}
    engine = registry.get("camelup")
    assert engine is not None
    assert atrest.load_state(engine, tables.load(tid)).winner_pile == ((turn, "purple"),)


def sheets_at_rest(store: Store, tid: str) -> list[object]:
    return [s["numbers"] for s in json.loads(store.r.get(doc_key(tid)))["state"]["seats"]]


def test_an_unchanged_sheet_keeps_its_ciphertext_and_a_new_one_gets_its_own(tables: Tables, store: Store) -> None:
    """A locked sheet is not sealed again at every later action (docs/fairness.md,
    "Kept ciphertexts"): its ciphertext stays while its value does, so the store
    shows only what the log shows, when each seat locked its sheet."""
    tid, tokens = table(tables, "countup")
    act(tables, tid, tokens[0], "start")
    sheets = {f"p{i + 1}": numbers(tables, tid, f"p{i + 1}", i) for i in range(3)}
    act(tables, tid, tokens[1], "numbers", numbers=sheets["p2"])
    first = sheets_at_rest(store, tid)
    assert first[0] is None and first[2] is None and atrest._is_sealed(first[1])
    act(tables, tid, tokens[0], "numbers", numbers=sheets["p1"])
    second = sheets_at_rest(store, tid)
    assert second[1] == first[1]  # p2's sheet did not change: the same ciphertext
    assert atrest._is_sealed(second[0]) and second[0] != second[1]
    # Read back through the kept ciphertexts: each phone still sees its own sheet.
    store.latest.drop(tid)
    doc = tables.load(tid)
    assert tables.snapshot(doc, "p2")["view"]["my_numbers"] == sheets["p2"]
    assert tables.snapshot(doc, "p1")["view"]["my_numbers"] == sheets["p1"]


def test_a_value_that_changed_or_cannot_be_compared_is_sealed_afresh() -> None:
    engine = registry.get("countup")
    options = engine.normalize_options({})
    start = engine.setup(["p1", "p2", "p3"], {**options, **engine.draw_setup(["p1", "p2", "p3"], options, random.Random(1))})

    def locked(*sheets: tuple[int, ...] | None) -> object:
        seats = tuple(dataclasses.replace(s, numbers=n) for s, n in zip(start.seats, sheets, strict=True))
        return dataclasses.replace(start, seats=seats)

    def stored(before: object, after: object, old: object) -> list[object]:
        doc = {"id": "t", "state": engine.dump(after)}
        atrest.hide_state(engine, doc, old, (before, after))  # type: ignore[arg-type]
        return [s["numbers"] for s in doc["state"]["seats"]]  # type: ignore[index]

    a, b = (1, 12, 23, 34, 45), (2, 13, 24, 35, 46)
    before = locked(a, None, None)
    old = {"id": "t", "state": engine.dump(before)}
    atrest.hide_state(engine, old)  # type: ignore[arg-type]
    kept = old["state"]["seats"][0]["numbers"]  # type: ignore[index]
    assert stored(before, locked(a, b, None), old["state"])[0] == kept
    changed = stored(before, locked(b, b, None), old["state"])
    assert changed[0] != kept and atrest.unseal(changed[0], "t", "state/seats/0/numbers") == list(b)
    # Without the engine states (an undo's replay) or with a state the dump's
    # path does not name, nothing is compared: sealed afresh.
    assert stored(None, locked(a, b, None), old["state"])[0] != kept
    assert stored(object(), locked(a, b, None), old["state"])[0] != kept
    assert atrest.unseal(stored(object(), locked(a, b, None), old["state"])[0], "t", "state/seats/0/numbers") == list(a)


def test_two_seats_sealed_sheets_swapped_in_the_store_do_not_open(tables: Tables, store: Store) -> None:
    """A ciphertext names its seat's place and its log entry: whoever writes to
    the store (without the key) cannot swap two seats' locked sheets, in the
    state or in the log, and have the count run on them; the table refuses to
    read them (``sealed_unreadable``) rather than play them."""
    tid, tokens = table(tables, "countup")
    act(tables, tid, tokens[0], "start")
    for i in (1, 0):
        act(tables, tid, tokens[i], "numbers", numbers=numbers(tables, tid, f"p{i + 1}", i))
    raw = json.loads(store.r.get(doc_key(tid)))
    seats = raw["state"]["seats"]
    seats[0]["numbers"], seats[1]["numbers"] = seats[1]["numbers"], seats[0]["numbers"]
    engine = registry.get("countup")
    assert engine is not None
    with pytest.raises(ServiceError) as caught:
        atrest.load_state(engine, raw)
    assert caught.value.code == "sealed_unreadable"
    logged = [json.loads(x) for x in store.r.lrange(log_key(tid), 0, -1)]
    a, b = (e for e in logged if e["action"]["type"] == "numbers")
    for e in (a, b):
        assert atrest.shown(tid, e["action"], e["v"])["numbers"] == atrest.unseal(
            e["action"]["numbers"], tid, f"action/{e['v']}/numbers")
    with pytest.raises(ServiceError):
        atrest.shown(tid, b["action"], a["v"])  # b's sheet moved to a's log entry


def test_a_ciphertext_sealed_before_the_binding_still_opens() -> None:
    """Tables in play at a deploy: their ciphertexts name the field's pattern."""
    old = atrest.seal([3, 14, 15, 22, 41], "t", "state/seats/*/numbers")
    assert atrest.unseal(old, "t", "state/seats/1/numbers", "state/seats/*/numbers") == [3, 14, 15, 22, 41]
    logged = atrest.seal([3, 14, 15, 22, 41], "t", "action/numbers")
    assert atrest.shown("t", {"type": "numbers", "numbers": logged}, 9)["numbers"] == [3, 14, 15, 22, 41]
    with pytest.raises(ServiceError):
        atrest.unseal(atrest.seal([1], "t", "state/seats/0/numbers"), "t", "state/seats/1/numbers",
                      "state/seats/*/numbers")
