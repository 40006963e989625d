"""A paused phone's socket (issue 33): its seat goes off the phone mid-game
(by the phone itself while it is live, issue 37) and the socket stays open, told it is paused (a spectator's view),
until the seat is handed back and its owner confirms; only a rejoin code's
new phone shuts it out (``bad_token``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.livehelpers import LivePhone, open_live_table, take_seat


@pytest.fixture
def server(app_server_factory):
    return app_server_factory({"TABLEMATE_FIXED_RANDOM": "1"})


def countup_table(base: str) -> list[LivePhone]:
    """Count Up, three phones, sheet entry open (the host typed the round's cards)."""
    phones = open_live_table(base, options={"restrictionSource": "manual"}, game="countup", names=["Bo", "Cy"])
    host = phones[0]
    for type_, payload in (("start", {}), ("restriction", {"digits": [7, 8, 9]})):
        status, r = host.act_http(type_, **payload)
        assert status == 200, r
    return phones


def no_error(phone: LivePhone) -> None:
    bad = [m for m in phone.inbox if m.get("type") == "error"]
    assert not bad, bad


def test_a_paused_phone_stays_connected_and_comes_back(server) -> None:
    host, bo, _cy = countup_table(server.url)
    first = bo.connect()
    assert first["view"]["phase"] == "entry" and {"type": "numbers"} in first["legal"]
    # The host cannot take a live phone off its seat (issue 37): only that phone can.
    status, r = host.act_http("phoneless", player=bo.id)
    assert status == 409 and r["error"]["code"] == "phone_live", r
    bo.send({"type": "action", "action": {"type": "phoneless", "player": bo.id}, "request_id": "off-1"})
    assert bo.wait_message("result")["request_id"] == "off-1"
    # Its new state went out just before its result.
    paused = bo.last
    assert paused is not None and paused.get("paused") == "phoneless"
    assert paused["me"] == bo.id and paused["legal"] == [] and paused["view"]["me"] is None
    no_error(bo)
    status, r = host.act_http("phone_back", player=bo.id)
    assert status == 200, r
    back = bo.wait_state(lambda s: s.get("paused") == "handed_back")
    assert back["legal"] == [{"type": "resume"}]
    bo.send({"type": "action", "action": {"type": "resume"}, "request_id": "resume-1"})
    result = bo.wait_message("result")
    assert result["request_id"] == "resume-1", result
    # The acting phone's new state goes out just before its result.
    mine: dict[str, Any] | None = bo.last
    assert mine is not None and mine["version"] == result["version"] and "paused" not in mine
    assert {"type": "numbers"} in mine["legal"] and mine["view"]["me"] is not None
    no_error(bo)
    bo.close()


def test_a_rejoin_code_kicks_the_paused_phone(server) -> None:
    host, bo, _cy = countup_table(server.url)
    bo.connect()
    status, r = bo.act_http("phoneless", player=bo.id)
    assert status == 200, r
    bo.wait_state(lambda s: s.get("paused") == "phoneless")
    take_seat(server.url, host, bo.id)
    msg = bo.recv()
    while msg["type"] == "state":
        msg = bo.recv()
    assert msg["type"] == "error" and msg["error"]["code"] == "bad_token"
