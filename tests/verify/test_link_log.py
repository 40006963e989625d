"""The tamper suite for the phones' parts (issue 38): in an honest game's
leg, every way a server could pass a chosen outcome off by changing the
phones' links (each tamper re-derives the leg, so every draw still replays)
fails the check, or, where the proof alone cannot tell, the phone's own
record does."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from tablemate_verify import ProofError, check
from tablemate_verify.phone import check_phone
from tablemate_verify.rules import verify
from tests.server.conftest import open_table
from tests.verify import games


def _swap(scope: dict[str, Any]) -> None:
    # A link of the server's own for a phone's: it chains to nothing.
    scope["outcomes"][1]["links"][0]["link"] = "5e" * 32


def _drop(scope: dict[str, Any]) -> None:
    # A link the server received, left out (so the outcome is another): the
    # seat's next link then skips one.
    scope["outcomes"][0]["links"].pop(0)


def _move(scope: dict[str, Any]) -> None:
    # Two rolls' links swapped: each seat's links out of their chain's order.
    a, b = scope["outcomes"][0], scope["outcomes"][1]
    a["links"], b["links"] = b["links"], a["links"]


def _anchor(scope: dict[str, Any]) -> None:
    # A chain of the server's own making passed off as a seat's.
    seat, old = scope["chains"][0]["seat"], scope["chains"][0]["anchor"]
    scope["chains"][0]["anchor"] = "a7" * 32
    for o in scope["outcomes"]:
        for e in o["links"]:
            if e["seat"] == seat and e["anchor"] == old:
                e["anchor"] = "a7" * 32


#: name → (tamper, a code among the mismatches).
TAMPERS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "swapped link": (_swap, "link_mismatch"),
    "link left out": (_drop, "link_mismatch"),
    "links moved": (_move, "link_mismatch"),
    "another anchor": (_anchor, "link_mismatch"),
}


@pytest.mark.parametrize("name", TAMPERS)
def test_a_leg_whose_links_are_not_the_phones_fails(redis_url: str, name: str) -> None:
    tamper, code = TAMPERS[name]
    honest = games.honest(redis_url, "camelup")[0]
    assert verify(honest).ok
    proof = games.relinked(honest, "leg/", tamper)
    report = verify(proof)
    assert code in {line.code for line in report.lines if line.status == "mismatch"}, report.lines


def test_every_roll_of_an_honest_game_took_every_phones_link(redis_url: str) -> None:
    proof = games.honest(redis_url, "camelup")[0]
    report = verify(proof)
    assert report.ok, report.first_mismatch
    legs = [s for s in proof["scopes"] if "/leg/" in s["label"] and s["secret"]]
    assert legs and all(sorted(e["seat"] for e in o["links"]) == ["p1", "p2", "p3", "p4"]
                        for s in legs for o in s["outcomes"])
    assert "links_ok" in [line.code for line in report.lines]


def test_every_link_removed_is_no_check_mark_and_each_phone_sees_its_part_missing(redis_url: str) -> None:
    """A server that re-derives a leg with no link at all: the next leg's
    links then skip, so the check fails. Stripped from every leg, the proof
    alone passes (as a table with no live phone would), but none of its rolls
    is a checked draw, and each phone holds the proof to the links it sent."""
    honest = games.honest(redis_url, "camelup")[0]

    def strip(scope: dict[str, Any]) -> None:
        for o in scope["outcomes"]:
            o["links"] = []
    one = games.relinked(honest, "leg/", strip)
    assert "link_mismatch" in [line.code for line in check(one).lines]
    proof = copy.deepcopy(honest)
    for s, scope in enumerate(proof["scopes"]):
        for o, out in enumerate(scope["outcomes"]):
            if out.get("links") and scope["secret"]:
                out["links"] = []
                games.rederive(proof, s, o)
    report = check(proof)  # as it stands: the re-derived rolls replay
    assert report.ok and report.count("outcome_ok") == 0 < report.count("server_only")
    label = next(s["label"] for s in honest["scopes"] if "/leg/" in s["label"] and s["secret"])
    mine = next(s for s in honest["scopes"] if s["label"] == label)
    export = {"format": "tablemate-phone/1", "table": proof["table"], "seat": "p2", "missed": [], "shown": {},
              "chains": [{"anchor": next(c["anchor"] for c in mine["chains"] if c["seat"] == "p2"), "length": 256,
                          "links": [next(e["link"] for e in o["links"] if e["seat"] == "p2") for o in mine["outcomes"]]}]}
    check_phone(proof, export, report)
    assert "own_link_missing" in [line.code for line in report.lines if line.status == "mismatch"]


def test_an_outcome_of_links_without_its_version_is_no_proof(redis_url: str) -> None:
    proof = games.honest(redis_url, "camelup")[0]
    del next(s for s in proof["scopes"] if s["outcomes"] and "links" in s["outcomes"][0])["outcomes"][0]["v"]
    with pytest.raises(ProofError):
        check(proof)


def test_the_seed_action_is_gone(redis_url: str) -> None:
    app, c = games.client(redis_url)
    phones = open_table(c, joiners=1, game="camelup")
    scope = phones[0].get().json["fair"]["open"][0]["scope"]
    r = phones[1].act("seed", scope=scope, seed="ab" * 32)
    assert r.status_code == 400 and r.json["error"]["code"] == "unknown_action"
