"""Count Up's undo boundary (issue 30, item 3): once the count has begun no undo
reopens sheet entry, and a called number that showed someone's sheet stays
called; quiet calls and the caller's taps for paper sheets stay undoable."""

from __future__ import annotations

from typing import Any

from tests.server.conftest import Phone, open_table
from tests.server.service.test_phoneless import act_as, add_phoneless, doc_of

#: Example sheets (restriction card 7, 8, 9 at 3 players bans 0, 7, 8, 9):
#: 1 host, 3 P2, 11 P3, 12 host, 15 P2 are declared in the first 16 calls.
SHEETS = ([1, 12, 24, 34, 41], [3, 15, 32, 35, 43], [11, 21, 33, 36, 46])


def countup(client: Any, **options: Any) -> list[Phone]:
    phones = open_table(client, joiners=2, game="countup", options={"restrictionSource": "manual", **options})
    assert phones[0].act("start").status_code == 200
    assert phones[0].act("restriction", digits=[7, 8, 9]).status_code == 200
    return phones


def lock_all(phones: list[Phone]) -> None:
    for phone, numbers in zip(phones, SHEETS, strict=True):
        assert phone.act("numbers", numbers=numbers).status_code == 200


def sealed(response: Any) -> bool:
    return response.status_code == 409 and response.json["error"]["code"] == "undo_sealed"


def test_the_host_cannot_undo_back_to_sheet_entry_and_rewrite_a_sheet(app, client) -> None:
    """The attack of issue 30: call numbers, undo all the way back into entry,
    then write a number the table has already seen declared."""
    phones = countup(client)
    host = phones[0]
    lock_all(phones)
    for _ in range(16):
        assert host.act("call").status_code == 200
    for _ in range(30):
        if host.act("undo").status_code != 200:
            break
    view = host.get().json["view"]
    assert view["phase"] == "count", "undo reopened sheet entry after numbers were called"
    assert view["my_numbers"] == SHEETS[0]
    before = doc_of(app, host.table)
    r = host.act("numbers", numbers=[2, 15, 24, 34, 41])  # 15: P2's, declared on call 15
    assert r.status_code == 409 and r.json["error"]["code"] == "locked", r.json
    assert doc_of(app, host.table) == before


def test_undo_steps_back_over_quiet_calls_and_stops_at_a_declared_number(client) -> None:
    phones = countup(client)
    host = phones[0]
    lock_all(phones)
    for _ in range(17):  # 15: P2 declares; 16 and 17 are quiet
        assert host.act("call").status_code == 200
    # One number too many (or two) revealed no sheet: the caller may take them back.
    assert host.act("undo").status_code == 200
    assert host.act("undo").status_code == 200
    count = host.get().json["view"]["count"]
    assert count["value"] == 15 and count["leader"] == "p2"
    r = host.act("undo")
    assert sealed(r), r.json
    assert host.get().json["view"]["count"]["value"] == 15
    assert {"type": "undo"} not in host.get().json["legal"], "nothing left to undo"
    # A quiet call after the seal is undoable again.
    assert host.act("call").status_code == 200
    assert host.act("undo").status_code == 200


def test_the_count_starting_is_an_undo_barrier(client) -> None:
    """R7: the sheets are locked once counting starts, even before a number is called."""
    phones = countup(client)
    host, bo, cy = phones
    assert host.act("numbers", numbers=SHEETS[0]).status_code == 200
    assert bo.act("numbers", numbers=SHEETS[1]).status_code == 200
    # During entry a lock can still be taken back (nothing has been shown yet).
    assert host.act("undo").status_code == 200
    assert bo.get().json["view"]["phase"] == "entry"
    assert bo.act("numbers", numbers=SHEETS[1]).status_code == 200
    assert cy.act("numbers", numbers=SHEETS[2]).status_code == 200
    assert host.get().json["view"]["phase"] == "count"
    r = host.act("undo")
    assert sealed(r), r.json
    assert cy.get().json["view"]["phase"] == "count"


def test_a_seat_losing_its_phone_that_starts_the_count_seals_too(app, client) -> None:
    """The count can also start from the platform's ``phoneless`` (the last
    sheet still on a phone goes to paper): the locks before it are sealed as well."""
    phones = countup(client)
    host, bo, cy = phones
    assert host.act("numbers", numbers=SHEETS[0]).status_code == 200
    assert bo.act("numbers", numbers=SHEETS[1]).status_code == 200
    r = host.act("phoneless", player=cy.id)
    assert r.status_code == 200 and {"type": "count_ready", "round": 1} in r.json["events"]
    r = host.act("undo")
    assert sealed(r), r.json
    assert doc_of(app, host.table)["undoable"] == []
    assert host.get().json["view"]["phase"] == "count"


def test_a_mistaken_tap_for_a_paper_seat_stays_undoable(client) -> None:
    """A paper sheet's declaration is the table's own input (a hand went up),
    not a secret the app showed: the caller may correct a wrong tap."""
    phones = open_table(client, joiners=2, game="countup", options={"restrictionSource": "manual"})
    host = phones[0]
    kid = add_phoneless(client, host, "Kid").json["player"]["id"]
    assert host.act("start").status_code == 200
    assert host.act("restriction", digits=[7, 8, 9]).status_code == 200
    lock_all(phones)
    for _ in range(2):
        assert host.act("call").status_code == 200
    r = act_as(host, kid, "paper_declare", number=2)
    assert r.status_code == 200, r.json
    assert host.get().json["view"]["count"]["leader"] == kid
    assert host.act("undo").status_code == 200
    assert host.get().json["view"]["count"]["leader"] == "p1"
    assert host.act("undo").status_code == 200, "call 2 was quiet"
    assert sealed(host.act("undo")), "call 1 showed the host's 1"
