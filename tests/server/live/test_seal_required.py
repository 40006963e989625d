"""A King Up vote sent as it is over the socket (issue 38): refused with the
same code as over HTTP (``seal_required``), its ``request_id`` answered with
an ``error`` frame, and the table as it was; sealed, the same seat's vote goes in."""

from __future__ import annotations

import pytest

from tests.sealed_votes import VoteSeals
from tests.server.live.test_stall_guard import kingup_vote
from tests.server.livehelpers import http


@pytest.fixture
def server(app_server_factory):
    return app_server_factory({})


def test_a_vote_in_the_open_over_the_socket_is_refused_and_changes_nothing(server) -> None:
    host, bo, _cy = kingup_vote(server.url)
    bo.connect()
    path = f"/api/tables/{host.table}"
    _, before = http(server.url, "GET", path, None, host.token)
    bo.send({"type": "action", "action": {"type": "vote", "vote": "no"}, "request_id": "clear-1"})
    error = bo.wait_message("error")
    assert error["request_id"] == "clear-1" and error["error"]["code"] == "seal_required", error
    _, after = http(server.url, "GET", path, None, host.token)
    assert after["version"] == before["version"] and after["view"] == before["view"]
    assert after["fair"]["sealed"] == [] and after["fair"]["to_seal"] == before["fair"]["to_seal"]
    _, mine = http(server.url, "GET", path, None, bo.token)
    sealed = VoteSeals().vote(mine, bo.id, "no")
    bo.send({"type": "action", "action": sealed, "request_id": "sealed-1"})
    result = bo.wait_message("result")
    assert result["request_id"] == "sealed-1" and result["events"][0]["type"] == "vote_cast", result
    _, now = http(server.url, "GET", path, None, host.token)
    assert now["fair"]["sealed"] == [{"seal": sealed["label"], "hash": sealed["hash"]}]
    bo.close()
