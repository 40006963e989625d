"""The table screen's bottom bar as e2e tests reach it: its History button, in
Korean or English, opens the history panel (worded on the phone itself)."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

#: The bar's button by its label in either language (web/i18n's ``table.history``).
HISTORY = re.compile(r"^(History|기록)$")


def open_history(page: Page) -> Locator:
    """Opens the history panel (closed till now: the button toggles it) and
    gives it back once shown."""
    page.get_by_role("button", name=HISTORY).click()
    panel = page.locator("#history-panel")
    expect(panel).to_be_visible()
    return panel
