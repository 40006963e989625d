"""The scoring moment (issue 41): at a Camel Up leg's end and a King Up! round's
end every phone shows who gained what and why, in its own language, until a tap
puts it away (a reload does not bring it back); the host's phone says it aloud
once; the history keeps the scoring. Tables driven through the HTTP API."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from e2e.camelup_helpers import open_as, seat_table, send, snapshot

#: Counts what the page asks the speech synthesizer to say, before the app runs.
SPEECH_SPY = """
window.__said = [];
window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; } };
if (window.speechSynthesis) {
  speechSynthesis.speak = (u) => { window.__said.push(u.text); };
  speechSynthesis.getVoices = () => [{lang: 'ko-KR', localService: true, name: 'ko'}, {lang: 'en-US', localService: true, name: 'en'}];
}
"""


def speaking_pair(phone: Any, table: str, tokens: list[str], langs: tuple[str, str]) -> tuple[Page, Page]:
    """The host's phone and Bora's, in ``langs``, each counting what it says aloud."""
    host, bora = phone(langs[0]), phone(langs[1])
    for page, token in ((host, tokens[0]), (bora, tokens[1])):
        page.add_init_script(SPEECH_SPY)
        open_as(page, table, token)
    return host, bora


def end_first_leg(base: str, table: str, tokens: list[str]) -> None:
    """Whoever's turn it is rolls the pyramid until leg 1 is scored."""
    for _ in range(20):
        if snapshot(base, table)["view"].get("last_leg"):
            return
        for tok in tokens:
            if any(a["type"] == "pyramid" for a in snapshot(base, table, tok)["legal"]):
                send(base, table, tok, {"type": "pyramid"})
                break
    raise AssertionError("leg 1 did not end")


def said(page: Page) -> list[str]:
    return page.evaluate("() => window.__said")


def test_a_camel_up_leg_end_shows_every_phone_who_gained_what_and_why(phone, server):
    table, tokens = seat_table(server, "camelup")
    host, bora = speaking_pair(phone, table, tokens, ("ko-KR", "en-US"))
    send(server, table, tokens[0], {"type": "start"})
    end_first_leg(server, table, tokens)
    leg = snapshot(server, table)["view"]["last_leg"]
    gains = {p["player"]: p["gain"] for p in leg["players"]}

    for page, title in ((host, "1레그 정산"), (bora, "Leg 1 result")):
        card = page.locator(".moment")
        expect(card.locator("#moment-title")).to_have_text(title)
        expect(card.locator(".moment-line")).to_have_count(3)
        for pid, gain in gains.items():
            line = card.locator(f".moment-line[data-player='{pid}']")
            expect(line.locator(".moment-gain")).to_have_text(f"+{gain}" if gain >= 0 else f"−{-gain}")
            # Three seats, five dice: everyone rolled, and says why it was paid.
            expect(line.locator(".moment-why")).to_contain_text("피라미드 티켓" if page is host else "Pyramid ticket")

    # The host's phone says it once; a guest's stays quiet.
    host.wait_for_function("() => window.__said.some((s) => s.startsWith('1레그 정산'))")
    assert [s for s in said(host) if s.startswith("1레그 정산")] == [said(host)[-1]]
    assert not [s for s in said(bora) if "Leg 1" in s]

    # A tap puts it away; a reload does not bring it back, nor say it again.
    bora.locator(".moment").click()
    expect(bora.locator(".moment")).to_be_hidden()
    expect(host.locator(".moment")).to_be_visible()
    host.locator(".moment .moment-ok").click()
    expect(host.locator(".moment")).to_be_hidden()
    host.reload()
    expect(host.locator(".game-camelup .cm-status")).to_be_visible()
    expect(host.locator(".moment")).to_be_hidden()
    assert not [s for s in said(host) if s.startswith("1레그 정산")]

    # The history keeps the scoring.
    host.locator("button[aria-controls='history-panel']").click()
    expect(host.locator("#history-panel")).to_contain_text("1레그 정산")

    # A phone that comes in now sees it too, until the next leg's first die.
    jihun = phone("ko-KR")
    open_as(jihun, table, tokens[2])
    expect(jihun.locator(".moment #moment-title")).to_have_text("1레그 정산")
    tok = next(t for t in tokens if any(a["type"] == "pyramid" for a in snapshot(server, table, t)["legal"]))
    send(server, table, tok, {"type": "pyramid"})
    expect(jihun.locator(".moment")).to_be_hidden()


def test_a_king_up_round_end_shows_each_score_and_why(phone, server):
    table, tokens = seat_table(server, "kingup", {"playMode": "score_only", "rounds": 2})
    page = phone("ko-KR")
    open_as(page, table, tokens[1])
    send(server, table, tokens[0], {"type": "start"})
    send(server, table, tokens[1], {"type": "goal", "characters": list("HIJKLM")})
    board = {"A": "throne", "B": 5, "C": 5, "D": 5, "E": 4, "F": 4, "G": 3,
             "H": "eliminated", "I": "eliminated", "J": "eliminated", "K": "eliminated",
             "L": "eliminated", "M": "eliminated"}
    send(server, table, tokens[0], {"type": "score_round", "board": board,
                                    "goals": {"p1": list("ABCDEF"), "p3": list("BCDEFG")}})
    result = snapshot(server, table)["view"]["round_results"][-1]
    card = page.locator(".moment")
    expect(card.locator("#moment-title")).to_have_text("1라운드 결과")
    for pid, pr in result["players"].items():
        line = card.locator(f".moment-line[data-player='{pid}']")
        expect(line.locator(".moment-gain")).to_have_text(f"+{pr['score']}")
        expect(line.locator(".moment-why")).to_contain_text(f"점수 합: {pr['raw']}")
    card.click()
    expect(card).to_be_hidden()


def test_a_count_up_round_end_is_said_by_the_phone_that_called_it(phone, server):
    import random

    from e2e.countup_helpers import random_sheets

    table, tokens = seat_table(server, "countup")
    host, bora = speaking_pair(phone, table, tokens, ("en-US", "ko-KR"))
    send(server, table, tokens[0], {"type": "start"})
    view = snapshot(server, table)["view"]
    for tok, nums in zip(tokens, random_sheets(view, random.Random(7), players=3), strict=True):
        send(server, table, tok, {"type": "numbers", "numbers": nums})
    send(server, table, tokens[0], {"type": "call", "until": "end"})
    rec = snapshot(server, table)["view"]["rounds_played"][-1]
    for page, title in ((host, "Round 1 result"), (bora, "1라운드 결과")):
        card = page.locator(".moment")
        expect(card.locator("#moment-title")).to_have_text(title)
        for pid, s in rec["players"].items():
            line = card.locator(f".moment-line[data-player='{pid}']")
            expect(line.locator(".moment-gain")).to_have_text(f"+{s['score']}")
    # The host called the count (no caller named): its phone says the outcome, once.
    host.wait_for_function("() => window.__said.some((s) => s.startsWith('Round 1 result'))")
    assert not [s for s in said(bora) if s.startswith("1라운드")]
