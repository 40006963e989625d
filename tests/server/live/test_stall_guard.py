"""When the host may step in (issue 37), on a live server with real sockets:
presence decides. A voter whose phone is connected is not skipped before the
wait; one whose phone has no socket is, once the shorter wait for a gone
phone is over (0 s here); a live phone is taken off its seat only by itself
(tests/server/live/test_paused.py)."""

from __future__ import annotations

import pytest

from tests.engines.kingup.climb import climb
from tests.server.livehelpers import LivePhone, http, open_live_table


@pytest.fixture
def server(app_server_factory):
    return app_server_factory({"TABLEMATE_STALL_AFTER": "60", "TABLEMATE_STALL_OFFLINE": "0"})


def kingup_vote(base: str) -> list[LivePhone]:
    """King Up!, three phones, played over HTTP to its first election."""
    phones = open_live_table(base, game="kingup", names=["Bo", "Cy"])
    table = phones[0].table
    by_id = {p.id: p for p in phones}
    status, r = phones[0].act_http("start")
    assert status == 200, r
    for _ in range(200):
        status, snap = http(base, "GET", f"/api/tables/{table}", None, phones[0].token)
        view = snap["view"]
        if view["phase"] == "vote":
            return phones
        mover = by_id[view["turn"]]
        _, mine = http(base, "GET", f"/api/tables/{table}", None, mover.token)
        act = climb(mine["legal"], view["positions"])
        status, r = mover.act_http(act["type"], **{k: v for k, v in act.items() if k != "type"})
        assert status == 200, r
    raise AssertionError("no election")


def test_presence_decides_when_a_voter_may_be_skipped(server) -> None:
    host, bo, cy = kingup_vote(server.url)
    host.connect()
    bo.connect()
    status, snap = http(server.url, "GET", f"/api/tables/{host.table}", None, host.token)
    assert status == 200 and {p["id"]: p["connected"] for p in snap["players"]}[bo.id] is True
    assert not any(a["type"] == "skip" for a in snap["legal"] if a.get("seat") == bo.id)
    assert any(a["seat"] == cy.id for a in snap["legal"] if a["type"] == "skip"), "Cy's phone is gone"
    assert snap["step_in"][bo.id] == round(snap["waiting_since"][bo.id] + 60, 3)
    status, r = host.act_http("skip", seat=bo.id)
    assert status == 409 and r["error"]["code"] == "not_stalled", r
    status, r = host.act_http("skip", seat=cy.id)
    assert status == 200, r
    # Every phone hears of the host's step as it happens.
    step = bo.wait_state(lambda s: "step" in s)["step"]
    assert step == {"v": r["version"], "type": "skip", "seat": cy.id, "by": host.id}
    host.close()
    bo.close()
