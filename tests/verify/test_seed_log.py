"""The tamper suite, item 2 of issue 38: a scope's seeds are held to the
log's seed actions (``seeded`` in the proof), and a seed or outcome without
its version fails. Each tamper below re-derives the leg, so the proof alone
replays (``check`` passes); ``python -m tablemate_verify`` fails it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from server.service import fairness
from tablemate_verify import check
from tablemate_verify.rules import verify
from tests.server.conftest import open_table
from tests.server.service.test_fairness import services
from tests.verify import games


def _swap(scope: dict[str, Any]) -> None:
    scope["seeds"][0]["seed"] = "5e" * 32


def _held_back(scope: dict[str, Any]) -> None:
    # The last seed counted for no outcome, and its version is gone so
    # late_seed cannot see that it was accepted before them.
    last = len(scope["seeds"]) - 1
    del scope["seeds"][last]["v"]
    for o in scope["outcomes"]:
        o["seeds"] = min(o["seeds"], last)


def _all_removed(scope: dict[str, Any]) -> None:
    scope["seeds"] = []
    for o in scope["outcomes"]:
        o["seeds"] = 0


def _reordered(scope: dict[str, Any]) -> None:
    scope["seeds"][:2] = scope["seeds"][1::-1]


#: name → (tamper, a code among the mismatches).
TAMPERS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "swapped seed": (_swap, "seed_mismatch"),
    "held back, version removed": (_held_back, "seed_unversioned"),
    "all seeds removed": (_all_removed, "seed_mismatch"),
    "seeds reordered": (_reordered, "seed_mismatch"),
}


@pytest.mark.parametrize("name", TAMPERS)
def test_a_scope_whose_seeds_are_not_the_logs_fails(redis_url: str, name: str) -> None:
    tamper, code = TAMPERS[name]
    proof = games.reseeded(games.honest(redis_url, "camelup")[0], "leg/", tamper)
    assert check(proof).ok, check(proof).first_mismatch
    report = verify(proof)
    assert code in {line.code for line in report.lines if line.status == "mismatch"}, report.lines


def test_the_log_lists_every_seed_of_an_honest_game(redis_url: str) -> None:
    proof = games.honest(redis_url, "kingup")[0]
    report = verify(proof)
    assert report.ok, report.first_mismatch
    seeded = [line for line in report.lines if line.code == "seeds_ok"]
    assert len(seeded) == len(proof["scopes"]) and proof["seeded"]
    assert all(set(e) == {"scope", "seat", "seed", "v"} and e["seed"] for e in proof["seeded"])


@pytest.mark.parametrize("change", ["no log", "seed dropped from the log", "outcome unversioned"])
def test_a_proof_without_what_the_seeds_are_held_to_fails(redis_url: str, change: str) -> None:
    proof = games.honest(redis_url, "camelup")[0]
    if change == "no log":
        del proof["seeded"]
    elif change == "seed dropped from the log":
        proof["seeded"].pop()
    else:
        del next(s for s in proof["scopes"] if s["outcomes"])["outcomes"][0]["v"]
    codes = {line.code for line in verify(proof).lines if line.status == "mismatch"}
    assert codes & {"seed_mismatch", "seed_unversioned"}, codes


def test_a_seed_accepted_while_the_proof_is_read_is_in_neither_part(redis_url: str) -> None:
    """The proof reads the table, then its log: a seed accepted in between
    must not show in the seed log without its scope (a false alarm on every
    phone that fetched the proof as a leg opened)."""
    app, c = games.client(redis_url)
    phones = open_table(c, joiners=2, game="camelup")
    svc = services(app)
    table = phones[0].table
    doc = svc.store.load(table)  # first, as Tables.proof reads it
    scope = phones[0].get().json["fair"]["open"][0]["scope"]
    assert phones[1].act("seed", scope=scope, seed="ab" * 32).status_code == 200
    body = fairness.proof(doc, svc.store.log(table))
    codes = {line.code for line in verify(body).lines if line.status == "mismatch"}
    assert not codes & {"seed_mismatch", "seed_unversioned"}, codes
    # Read again, the seed is in both.
    body = fairness.proof(svc.store.load(table), svc.store.log(table))
    assert [e["seed"] for e in body["seeded"]] == ["ab" * 32]
    assert verify(body).ok
