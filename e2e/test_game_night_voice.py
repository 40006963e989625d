"""The phone says it aloud (issue 33), as Count Up's caller does: Camel Up's
phone that rolls a die says it ("파랑 3" / "blue 3"), King Up!'s host phone
says the vote reveal; each phone has a mute switch it remembers. The device's
speech synthesis is replaced by a recorder (a headless browser has no voice)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import COLOUR_WORDS, RACING, call, open_as, send, snapshot
from tests.sealed_votes import VoteSeals, vote_all

# What the page asks the device to say (not the silent word a tap speaks to
# unlock speech), with a Korean and an English voice.
SPEECH_SPY = """
window.__said = [];
const voices = [{ lang: 'ko-KR', name: '유나', localService: true }, { lang: 'en-US', name: 'Ann', localService: true }];
Object.defineProperty(window, 'speechSynthesis', { configurable: true, value: {
  speaking: false, pending: false,
  speak(u) { if (u.volume !== 0) window.__said.push(u.text); }, cancel() {}, getVoices() { return voices; },
  addEventListener() {}, removeEventListener() {},
} });
window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; } };
"""


def speaking_phone(phone, locale: str, table: str, token: str) -> Page:
    page: Page = phone(locale)
    page.add_init_script(SPEECH_SPY)
    open_as(page, table, token)
    return page


def said(page: Page) -> list[str]:
    return page.evaluate("window.__said")


def tables_with(base: str, game: str, names: tuple[str, ...], options: dict[str, Any]) -> tuple[str, list[str]]:
    res = call(base, "POST", "/api/tables", {"game": game, "name": "민수", "options": options})
    table, tokens = res["table"], [res["player"]["token"]]
    tokens += [call(base, "POST", f"/api/tables/{table}/players", {"name": n})["player"]["token"] for n in names]
    send(base, table, tokens[0], {"type": "start"})
    return table, tokens


def die_words(page: Page, lang: str) -> str:
    """What the newest die in the tents is, in the words the phone should say."""
    die = page.locator(".cm-tents .cm-die").last
    kind, value, camel = die.get_attribute("data-die"), die.get_attribute("data-value"), die.get_attribute("data-camel")
    words = dict(zip(RACING, COLOUR_WORDS[lang], strict=True))
    if kind == "grey":
        crazy = {"ko": {"white": "흰색", "black": "검정"}, "en": {"white": "white", "black": "black"}}[lang][camel]
        return f"{crazy} 미친 낙타 {value}" if lang == "ko" else f"{crazy} crazy camel, {value}"
    return f"{words[kind]} {value}"


def test_the_phone_that_rolls_says_the_die_and_can_be_muted(phone, server) -> None:
    table, (host, bora, jihun) = tables_with(server, "camelup", ("Bora", "지훈"), {})
    ko = speaking_phone(phone, "ko-KR", table, host)
    en = speaking_phone(phone, "en-US", table, bora)
    switch = ko.get_by_role("button", name="음성 켜짐")
    expect(switch).to_have_attribute("aria-pressed", "true")
    ko.locator(".cm-roll").click()
    expect(ko.locator(".cm-tents .cm-die")).to_have_count(1)
    ko.wait_for_function("() => window.__said.length > 0")  # a function: an expression string is eval'd, which the CSP refuses
    assert said(ko) == [die_words(ko, "ko")]
    # Only the phone that rolled speaks: Bora's phone shows the die, silently.
    expect(en.locator(".cm-tents .cm-die")).to_have_count(1)
    assert said(en) == []

    # Muted, remembered on this phone: the next roll says nothing, even after a reload.
    switch.click()
    expect(ko.get_by_role("button", name="음성 꺼짐")).to_have_attribute("aria-pressed", "false")
    ko.reload()
    expect(ko.get_by_role("button", name="음성 꺼짐")).to_have_attribute("aria-pressed", "false")
    send(server, table, bora, {"type": "leg_bet", "camel": "blue"})
    send(server, table, jihun, {"type": "leg_bet", "camel": "blue"})
    ko.locator(".cm-roll").click()
    expect(ko.locator(".cm-tents .cm-die")).to_have_count(2)
    ko.wait_for_timeout(300)
    assert said(ko) == []


def kingup_to_the_last_vote(base: str, table: str, tokens: list[str]) -> VoteSeals:
    """Plays King Up! (full mode) through the API to its first election, every
    phone but the host's voting yes, sealed as the app seals: what they keep."""
    for tok, card in zip(tokens, ("ABCDEF", "GHIJKL", "ABGHLM"), strict=True):
        send(base, table, tok, {"type": "goal", "characters": list(card)})
    for _ in range(200):
        view = snapshot(base, table)["view"]
        if view["phase"] == "vote":
            break
        tok = next(t for t in tokens if any(a["type"] in ("place", "move") for a in snapshot(base, table, t)["legal"]))
        legal = [a for a in snapshot(base, table, tok)["legal"] if a["type"] in ("place", "move")]
        # Toward the throne: the highest placement, the character furthest up.
        pos = view["positions"]
        best = max(legal, key=lambda a: a.get("level", 0) if a["type"] == "place"
                   else (pos[a["char"]] if isinstance(pos.get(a["char"]), int) else -1))
        send(base, table, tok, best)
    else:
        raise AssertionError("no election came")
    seals = VoteSeals()
    for tok in tokens[1:]:
        seat = snapshot(base, table, tok)["me"]
        send(base, table, tok, seals.vote(snapshot(base, table, tok), seat, "yes"))
    return seals


def test_the_host_phone_says_the_vote_reveal(phone, server) -> None:
    table, tokens = tables_with(server, "kingup", ("Bora", "지훈"), {})
    ko = speaking_phone(phone, "ko-KR", table, tokens[0])
    en = speaking_phone(phone, "en-US", table, tokens[1])
    # The host's phone speaks by default; the others are off until turned on.
    expect(ko.get_by_role("button", name="음성 켜짐")).to_have_attribute("aria-pressed", "true")
    expect(en.get_by_role("button", name="Voice off")).to_have_attribute("aria-pressed", "false")
    seals = kingup_to_the_last_vote(server, table, tokens)
    candidate = snapshot(server, table)["view"]["election"]["candidate"]
    # The host's vote, the last in, sealed too; then each seat opens its own,
    # and the last opening reveals the election.
    seats = {snapshot(server, table, t)["me"]: t for t in tokens}
    host = snapshot(server, table, tokens[0])["me"]
    vote_all({host: "no"}, lambda seat: snapshot(server, table, seats[seat]),
             lambda seat, action: send(server, table, seats[seat], action), seals)
    ko.wait_for_function("() => window.__said.length > 0")  # a function: an expression string is eval'd, which the CSP refuses
    assert said(ko) == [f"찬성 2, 반대 1. {candidate}, 성에서 쫓겨남"]
    expect(en.locator(".ku-reveal")).to_be_visible()
    assert said(en) == []
