"""The proof: a faithful one checks; every alteration a cheating server could
make is flagged, naming the right outcome or seal; nothing secret is
published before its reveal; a document that is not a proof is refused."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from tablemate_verify import ProofError, check, publish
from tests.verify import tables
from tests.verify.tables import GOALS, LEG1, LEG2, OPEN_VOTE, SHEET, VOTE


def summary(report: Any) -> list[tuple[str, str, dict[str, Any]]]:
    return [(line.status, line.code, line.where) for line in report.lines]


def test_a_faithful_proof_checks() -> None:
    report = check(tables.proof())
    assert report.ok, report.first_mismatch
    assert summary(report) == [
        ("ok", "secret_ok", {"scope": LEG1}),
        *[("ok", "outcome_ok", {"scope": LEG1, "index": i}) for i in range(5)],
        ("open", "scope_open", {"scope": LEG2}),
        ("ok", "secret_ok", {"scope": GOALS}),
        *[("ok", "outcome_ok", {"scope": GOALS, "index": i}) for i in range(3)],
        ("ok", "seal_ok", {"seal": SHEET}),
        ("ok", "seal_ok", {"seal": VOTE}),
        ("open", "seal_open", {"seal": OPEN_VOTE}),
    ]


@pytest.mark.parametrize("name", tables.TAMPERED)
def test_an_altered_proof_names_the_first_mismatch(name: str) -> None:
    _, code, where = tables.TAMPERED[name]
    report = check(tables.tampered(name))
    assert not report.ok
    first = report.first_mismatch
    assert first is not None and (first.code, first.where) == (code, where), first
    # Nothing else is flagged: every mismatch is about the altered outcome or seal.
    named = {k: v for k, v in where.items() if k != "draw"}
    for line in report.lines:
        if line.status == "mismatch":
            assert {k: line.where.get(k) for k in named} == named, line


def test_a_seed_held_back_is_flagged() -> None:
    # Every draw replays (the server derived them without p2's seed), but the
    # seed was accepted at version 3, before all five rolls.
    report = check(tables.proof(held_back=True))
    late = [line for line in report.lines if line.status == "mismatch"]
    assert [(line.code, line.where) for line in late] == [
        ("late_seed", {"scope": LEG1, "index": i}) for i in range(5)]
    assert report.count("ok") == len(check(tables.proof()).lines) - 2


def test_nothing_secret_is_published_before_its_reveal() -> None:
    scopes, seals = tables.records()
    text = json.dumps(tables.proof())
    leg2 = next(s for s in scopes if s["label"] == LEG2)
    sealed_vote = next(s for s in seals if s["label"] == OPEN_VOTE)
    assert leg2["secret"] not in text and sealed_vote["salt"] not in text
    published = next(s for s in tables.proof()["scopes"] if s["label"] == LEG2)
    assert published["secret"] is None
    # An open scope's outcomes (a private card, say) show only their index and seeds.
    assert [set(o) for o in published["outcomes"]] == [{"index", "seeds", "v"}] * 2
    assert next(s for s in tables.proof()["sealed"] if s["label"] == OPEN_VOTE) == {
        "label": OPEN_VOTE, "hash": sealed_vote["hash"], "salt": None}
    # Once revealed, all of it.
    for s in scopes:
        s["revealed"] = True
    for s in seals:
        s["revealed"] = True
    report = check(publish("Ab3x", "camelup", scopes, seals))
    assert report.ok and report.count("open") == 0


def broken(change: Any) -> dict[str, Any]:
    p = copy.deepcopy(tables.proof())
    change(p)
    return p


@pytest.mark.parametrize("change", [
    lambda p: p.update(format="tablemate-proof/0"),
    lambda p: p.pop("scopes"),
    lambda p: p["scopes"].append(copy.deepcopy(p["scopes"][0])),
    lambda p: p["sealed"].append(copy.deepcopy(p["sealed"][0])),
    lambda p: p["scopes"][0].update(label="has space"),
    lambda p: p["scopes"][0].update(commitment="XYZ"),
    lambda p: p["scopes"][0]["outcomes"][0].update(seeds=3),
    lambda p: p["scopes"][0]["outcomes"][0].update(index=-1),
    lambda p: p["scopes"][0]["outcomes"][0].pop("draws"),
    lambda p: p["scopes"][0]["outcomes"][0]["draws"][0].pop("result"),
    lambda p: p["scopes"][0]["outcomes"][0]["draws"][0].update(op="dice"),
    lambda p: p["scopes"][0]["outcomes"][0]["draws"][0].update(field=["a", "b"]),
    lambda p: p["scopes"][0]["outcomes"][0].update(fields=[1]),
    lambda p: p["scopes"][0]["seeds"][0].update(seed="12"),
    lambda p: p["sealed"][0].pop("value"),
], ids=["format", "no-scopes", "two-scopes-one-label", "two-seals-one-label", "bad-label",
        "bad-commitment", "more-seeds-than-listed", "negative-index", "no-draws", "no-result",
        "unknown-op", "field-count", "fields-not-object", "bad-seed", "revealed-seal-without-value"])
def test_a_document_that_is_not_a_proof_is_refused(change: Any) -> None:
    with pytest.raises(ProofError):
        check(broken(change))


def test_an_outcome_no_phone_seeded_replays_but_is_not_checked() -> None:
    """Issue 38, item 4: drawn with 0 phone seeds, the server alone chose it."""
    report = check(tables.proof(unseeded=True))
    assert report.ok  # nothing contradicts it...
    lines = [line for line in summary(report) if line[2].get("scope") == GOALS]
    # ...but nothing proves it either: no outcome_ok for any of the three cards.
    assert lines == [("ok", "secret_ok", {"scope": GOALS}),
                     *[("server_only", "outcome_server_only", {"scope": GOALS, "index": i}) for i in range(3)]]
    assert report.count("server_only") == 3


def test_a_leg_of_chain_links_checks_and_every_way_to_choose_among_links_fails() -> None:
    report = check(tables.linked())
    assert report.ok, report.first_mismatch
    codes = [line.code for line in report.lines]
    assert codes.count("outcome_ok") == 3 and codes[-1] == "links_ok"
    for cheat, (code, where) in tables.LINK_CHEATS.items():
        bad = check(tables.linked(cheat)).first_mismatch
        assert bad is not None and (bad.code, bad.where) == (code, where), cheat
