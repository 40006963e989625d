"""The scoring moment and the turn in view in Safari's engine (issue 41):
a WebKit phone shows a Camel Up leg's scoring, who gained what and why, until
a tap puts it away; and its bottom bar stays put as its turn comes and goes.
Runs with the other WebKit tests (``pytest -k webkit``)."""

from __future__ import annotations

import uuid

from e2e.camelup_helpers import drawn
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
                # The roll waits for the open phone's link (issue 38), and while it
                # waits nobody may roll: twenty quick looks at a busy machine's late
                # WebKit answer ended the loop before the leg did.
                drawn(server, table, call(server, "POST", f"/api/tables/{table}/actions",
                                          {"action": {"type": "pyramid"}, "request_id": uuid.uuid4().hex}, t))
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


#: The bottom bar's height, its waiting line's, its buttons' top, and whether the line rings this phone's turn.
BAR = """
const bar = document.querySelector('.bottom-bar').getBoundingClientRect();
const line = document.querySelector('.waiting-line');
return [bar.height, line.getBoundingClientRect().height,
        document.querySelector('.bottom-bar .bar-buttons').getBoundingClientRect().top,
        line.classList.contains('mine'), document.querySelector('.waiting-names').textContent];
"""


def test_webkit_bottom_bar_stays_put_as_the_turn_comes_and_goes(webkit, server, games):
    """Safari's engine keeps the ring's room as Chromium does (e2e/test_layout_stable.py)."""
    table, tokens = seated_table(server, "camelup", ["Ada", "Grace", "Alan"])
    seat_of = {call(server, "GET", f"/api/tables/{table}", token=t)["me"]: t for t in tokens}
    phone = webkit()
    open_seat(phone, table, tokens[1])
    phone.until(lambda: shown(phone, ".waiting-names"), "whom the table waits for")
    seen = []
    for n in range(3):
        phone.js("window.scrollTo(0, document.scrollingElement.scrollHeight)")
        seen.append(phone.js(BAR))
        waited = call(server, "GET", f"/api/tables/{table}", token=tokens[1])["view"]["waiting"][0]
        call(server, "POST", f"/api/tables/{table}/actions",
             {"action": {"type": "leg_bet", "camel": "blue"}, "request_id": f"bet-{n}"}, seat_of[waited])
        phone.until(lambda before=seen[-1][4]: phone.js(BAR)[4] != before, "the next seat waited for")
    assert any(s[3] for s in seen) and not all(s[3] for s in seen), seen
    for i in (0, 1, 2):
        assert max(s[i] for s in seen) - min(s[i] for s in seen) < 1, seen
