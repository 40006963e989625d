"""Fair dice on a plain-http LAN (issue 38, item 7): `make run` at home serves
http://<the host's LAN name>, which is not a secure context, so Web Crypto is
missing; the phones check the leg with the bundled @noble/hashes instead.
Chromium reaches the server by a name other than localhost
(``--host-resolver-rules``), as a phone on the LAN does."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from e2e import fair_helpers as fh
from e2e.camelup_helpers import open_as
from e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from e2e.table_helpers import open_history

LAN = "tablemate.test"


@pytest.fixture
def lan_browser(browser: Browser) -> Iterator[Browser]:
    """A second Chromium (from the session's Playwright) that resolves the LAN name to the loopback."""
    b = browser.browser_type.launch(executable_path=CHROMIUM,
                                    args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {LAN} 127.0.0.1"])
    yield b
    b.close()


def test_a_phone_on_plain_http_checks_a_leg(lan_browser: Browser, server: str, games) -> None:
    base = server.replace("127.0.0.1", LAN)
    table, tokens = fh.new_table(server, "camelup", ["Ana", "Bora", "Dana"])
    errors: list[str] = []
    pages = []
    for token in tokens:
        ctx = lan_browser.new_context(base_url=base, locale="en-US", viewport={"width": 390, "height": 844})
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        open_as(page, table, token)
        pages.append(page)
    # Not a secure context: no Web Crypto here, as on a phone at home.
    assert pages[0].evaluate("[window.isSecureContext, typeof crypto.subtle]") == [False, "undefined"]
    fh.wait_for(lambda: fh.anchored_by(server, table, ["p1", "p2", "p3"]), "every phone's chain in the lobby")
    fh.start(server, table, tokens)
    fh.roll_leg(server, table, tokens)
    for page in pages:
        expect(page.locator(".fair-status")).to_contain_text("✓")
        expect(page.locator(".fair-warning")).to_be_hidden()
    page = pages[1]
    open_history(page)
    leg1 = page.locator(".history-round", has=page.locator("h3", has_text="Leg 1"))
    expect(leg1.locator(".fair-mark.ok")).to_have_text("✓ checked")
    for page in pages:
        page.context.close()
    assert not errors, errors
