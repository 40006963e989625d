"""The scoring moment and the turn in view in Safari's engine (issue 41):
a WebKit phone shows a Camel Up leg's scoring, who gained what and why, until
a tap puts it away. Runs with the other WebKit tests (``pytest -k webkit``)."""

from __future__ import annotations

import uuid

from e2e.test_fair_webkit import open_seat, shown
from e2e.test_webkit import call, display, game_moves, seated_table, webkit

__all__ = ["display", "webkit"]  # the fixtures, used by name


def roll_until_leg_scored(server: str, table: str, tokens: list[str]) -> dict:
    for _ in range(20):
        view = call(server, "GET", f"/api/tables/{table}")["view"]
        if view.get("last_leg"):
            return view["last_leg"]
        for t in tokens:
            if any(a["type"] == "pyramid" for a in game_moves(call(server, "GET", f"/api/tables/{table}", token=t))):
                call(server, "POST", f"/api/tables/{table}/actions", {"action": {"type": "pyramid"}, "request_id": uuid.uuid4().hex}, t)
                break
    raise AssertionError("leg 1 did not end")


def test_webkit_scoring_moment_of_a_camel_up_leg(webkit, server, games):
    table, tokens = seated_table(server, "camelup", ["Ada", "Grace", "Alan"])
    phone = webkit()
    open_seat(phone, table, tokens[1])
    leg = roll_until_leg_scored(server, table, tokens)
    phone.until(lambda: shown(phone, ".moment #moment-title") == "Leg 1 result", "the leg's scoring moment")
    for p in leg["players"]:
        gain = p["gain"]
        want = f"+{gain}" if gain >= 0 else f"−{-gain}"

        def line_of(p: dict = p) -> tuple[str, str] | None:
            # The shown line only, read whole in one pass: a screen re-rendered
            # meanwhile (a snapshot of a busy machine's late frame) may keep a hidden
            # copy in the page, whose text WebDriver reads as ''.
            for e in phone.css(f".moment-line[data-player='{p['player']}']"):
                if e.is_displayed():
                    return (e.find_element("css selector", ".moment-gain").text,
                            e.find_element("css selector", ".moment-why").text)
            return None
        _, why = phone.until(lambda want=want: (got := line_of()) and got[0] == want and got,
                                      f"{p['player']}'s line showing {want}")
        assert "Pyramid ticket" in why
    phone.tap(phone.css(".moment")[0])
    phone.until(lambda: not phone.css(".moment")[0].is_displayed(), "the moment put away")
    phone.d.refresh()
    phone.until(lambda: phone.css(".game-camelup .cm-status"), "the table again")
    assert not phone.css(".moment")[0].is_displayed()


#: Whether an element stands whole between the top of the screen and the bottom bar.
IN_VIEW = """
const el = [...document.querySelectorAll(arguments[0])].find((e) => e.getClientRects().length);
if (!el) return arguments[0] + ': none shown';
const bar = document.querySelector('.bottom-bar').getBoundingClientRect().top;
const r = el.getBoundingClientRect();
return r.top >= 0 && r.bottom <= bar ? true : `${arguments[0]}: ${Math.round(r.top)}..${Math.round(r.bottom)}, bar at ${Math.round(bar)}`;
"""


def test_webkit_camel_up_turn_in_view(webkit, server, games):
    table, tokens = seated_table(server, "camelup", ["Ada", "Grace", "Alan"])
    first = call(server, "GET", f"/api/tables/{table}")["view"]["current_player"]
    nxt = {"p1": "p2", "p2": "p3", "p3": "p1"}[first]
    phone = webkit()
    # A phone's height as the e2e phones have it (the window's chrome aside).
    phone.d.set_window_size(390, 844)
    open_seat(phone, table, tokens[int(nxt[1:]) - 1])
    call(server, "POST", f"/api/tables/{table}/actions",
         {"action": {"type": "pyramid"}, "request_id": uuid.uuid4().hex}, tokens[int(first[1:]) - 1])
    phone.until(lambda: phone.css(".cm-actions.my-turn"), "this phone's turn")
    phone.until(lambda: phone.css(".cm-pyramid .cm-last"), "the last die")
    for sel in (".cm-board .cm-track", ".cm-pyramid .cm-last", ".cm-actions .cm-tickets", "button.cm-roll"):
        phone.until(lambda sel=sel: phone.js(IN_VIEW, sel) is True, f"{sel} in view ({phone.js(IN_VIEW, sel)})")
    assert not phone.css(".scoreboard")[0].is_displayed()
