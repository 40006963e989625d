"""Fair dice in Safari's engine (issue 31): a WebKit phone anchors its chain and answers the draws it
is shown, checks the reveal with WebKit's own Web Crypto, and flags a roll, a
sheet and a vote changed in Redis after their reveal; the standalone checker
flags each too. Runs with the other WebKit tests (``pytest -k webkit``)."""

from __future__ import annotations

import json
import time

import pytest

from e2e import fair_helpers as fh
from e2e.test_webkit import WebKitPhone, display, webkit

__all__ = ["display", "webkit"]  # the fixtures, used by name


def open_seat(phone: WebKitPhone, table: str, token: str) -> None:
    phone.go("/")
    phone.js("localStorage.setItem('tablemate.lang', 'en')")
    phone.js(f"localStorage.setItem('tablemate.token.{table}', {json.dumps(token)})")
    phone.go(f"/t/{table}")
    phone.until(lambda: phone.connection() == "open", "an open connection")


def shown(phone: WebKitPhone, selector: str) -> str:
    """The text of the first visible element matching ``selector`` ('' when none)."""
    return next((e.text for e in phone.css(selector) if e.is_displayed()), "")


@pytest.mark.parametrize("case", sorted(fh.CASES))
def test_webkit_fair_check_flags_a_reveal_changed_in_redis(webkit, server: str, redis_url: str, case: str) -> None:
    c = fh.CASES[case]
    table, tokens = fh.new_table(server, c["game"], c["names"], c["options"])
    phone = webkit()
    open_seat(phone, table, tokens[0])
    if fh.snap(server, table)["fair"]["open"]:
        # This WebKit phone anchors its chain, as every phone does.
        fh.wait_for(lambda: fh.anchored_by(server, table, ["p1"]), "the WebKit phone's chain")
    fh.start(server, table, tokens)
    c["play"](server, table, tokens)
    phone.until(lambda: "✓" in shown(phone, ".fair-status"), "the reveal checked")
    fh.tamper(redis_url, table, c["what"], c["change"])
    out = fh.verify(server, table)
    assert out.returncode == 1 and "MISMATCH" in out.stdout, out.stdout + out.stderr
    phone.d.refresh()
    warning = phone.until(lambda: shown(phone, ".fair-warning[role='alert']"), "the warning")
    assert c["says"] in warning and "Something was changed" in warning, warning
    assert "✓" not in shown(phone, ".fair-status")


def test_webkit_phone_flags_its_own_link_left_out(webkit, server: str, redis_url: str) -> None:
    """Issue 38: a roll re-derived without this WebKit phone's link replays
    and passes the CLI alone; the phone holds the proof to the links it sent
    (kept in its localStorage) and says its part is missing."""
    table, tokens = fh.new_table(server, "camelup", ["Ada", "Grace", "Alan"])
    phone = webkit()
    open_seat(phone, table, tokens[0])
    fh.wait_for(lambda: fh.anchored_by(server, table, ["p1"]), "the WebKit phone's chain")
    fh.start(server, table, tokens)
    fh.roll_leg(server, table, tokens)
    phone.until(lambda: "✓" in shown(phone, ".fair-status"), "the leg checked")
    fh.tamper(redis_url, table, "/leg/1", fh.link_left_out)
    assert fh.verify(server, table).returncode == 0
    phone.d.refresh()
    warning = phone.until(lambda: shown(phone, ".fair-warning[role='alert']"), "the warning")
    assert "this phone's own part of a draw" in warning and "Leg 1" in warning, warning



def test_webkit_two_tabs_of_one_seat_share_its_chain(webkit, server: str) -> None:
    """The seat open in two WebKit tabs (an iPhone's QR scanned twice), both
    shown at once that the seat's chain is not theirs (here a chain anchored
    from elsewhere; as after a link not counted): each may anchor once and one
    takes up the other's, no anchor over anchor; then the draws take that
    chain's links in order, whichever tab sends them (e2e/test_fair.py: the
    same in Chromium, and a tab that slept)."""
    table, tokens = fh.new_table(server, "camelup", ["Ada", "Grace", "Alan"])
    phone = webkit()
    phone.go("/")
    phone.js(f"localStorage.setItem('tablemate.token.{table}', {json.dumps(tokens[0])})")
    phone.go(f"/t/{table}")
    fh.wait_for(lambda: fh.anchored_by(server, table, ["p1"]), "p1's chain")
    phone.d.switch_to.new_window("tab")
    phone.go(f"/t/{table}")
    phone.until(lambda: phone.connection() == "open", "the second tab's connection")
    fh.act(server, table, tokens[0], {"type": "anchor", "anchor": "ab" * 32, "length": 8})
    before = fh.snap(server, table)["version"]
    fh.wait_for(lambda: fh.snap(server, table)["fair"]["chains"]["p1"]["anchor"] != "ab" * 32, "a tab's new chain")
    time.sleep(1.5)
    settled = fh.snap(server, table)["version"]
    assert settled <= before + 2  # an anchor from each tab at most, not a storm
    time.sleep(1)
    assert fh.snap(server, table)["version"] == settled
    anchor = fh.snap(server, table)["fair"]["chains"]["p1"]["anchor"]
    fh.start(server, table, tokens)
    fh.roll_leg(server, table, tokens)
    fh.roll_leg(server, table, tokens)
    proof = fh.call(server, "GET", f"/api/tables/{table}/proof")
    legs = [s for s in proof["scopes"] if "/leg/" in s["label"]]
    assert [[e["seat"] for e in o["links"]] for s in legs[:2] for o in s["outcomes"]] == [["p1"]] * 10
    assert fh.snap(server, table)["fair"]["chains"]["p1"]["anchor"] == anchor
    for handle in phone.d.window_handles:
        phone.d.switch_to.window(handle)
        phone.until(lambda: "✓" in shown(phone, ".fair-status"), "leg 1 checked")
        assert shown(phone, ".fair-warning") == ""
