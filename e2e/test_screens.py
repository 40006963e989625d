"""Every screen, as a table sees it: one Korean and one English phone at a table
of four, for each game, through the lobby (rules open), the table (players panel
open), the history and the results. On each screen:

- the Korean phone shows no program identifiers (camelCase or snake_case keys,
  ``null``, JSON, English words that should have been translated);
- axe-core (npm, ``node_modules/axe-core``) finds no violation, in both languages;
- every visible control is at least 44×44 px;
- a screenshot is written to ``e2e/screenshots/<screen>-<lang>-<scheme>.png``
  (git-ignored), the list of screens being ``docs/screens.md``.

Every screen is visited twice, by phones set to the light and to the dark theme
(the app follows ``prefers-color-scheme``): axe checks the contrast of both.

The tables are driven through the HTTP API (the other seats); the phones only look.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from conftest import skip_or_fail
from e2e.camelup_helpers import call, open_as, send, snapshot
from e2e.countup_helpers import random_sheets

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "e2e" / "screenshots"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
LANGS = {"ko": "ko-KR", "en": "en-US"}

#: The Korean table: Korean names, so any Latin word on a Korean screen is a leak,
#: but for the English phone's seat and the few words Korean writes in Latin letters.
NAMES = ["민수", "Bora", "지훈", "유나"]
#: "English" is the language switch, in its own language.
LATIN_OK = {"Bora", "Tablemate", "English", "QR", "X", "BG", "Stats"}  # names, not words

#: Each game: rule options that differ from the defaults (the lobby highlights them).
OPTIONS: dict[str, dict[str, Any]] = {
    "camelup": {"crazyLoneCrossingEndsGame": False, "racingColours": ["blue", "green", "yellow", "red", "orange"]},
    "kingup": {"playMode": "score_only", "rounds": 1},
    "countup": {"countIntervalMs": 400, "dangerZoneEnabled": True},
}

_CAMEL = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]+)+\b")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b")
_RAW = re.compile(r"\bnull\b|\bundefined\b|\bNaN\b|\[object|\{\"|\{\}|\[\]|\btrue\b|\bfalse\b")
_LATIN = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_URL = re.compile(r"https?://\S+")

# Visible text, the names a screen reader reads, and the options of selects.
_TEXTS_JS = """() => {
  const out = [document.body.innerText];
  for (const el of document.querySelectorAll('[aria-label],[title],img[alt],[placeholder]')) {
    if (el.closest('[hidden]')) continue;
    for (const a of ['aria-label', 'title', 'alt', 'placeholder']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
  }
  for (const o of document.querySelectorAll('select option')) out.push(o.textContent);
  let text = out.join('\\n');
  // The fair-dice phrase is four BIP-39 words, a list that holds "true" and
  // "false": words said aloud, not leaked values (a CI run drew "false squirrel ...").
  // Read in the same turn as the text, so a phrase shown meanwhile is not missed.
  for (const w of document.querySelectorAll('.fair-words')) if (w.textContent) text = text.split(w.textContent).join(' ');
  return text;
}"""

# Visible controls smaller than 44×44 px (a checkbox counts by its row).
_SMALL_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('button, a[href], input, select, summary, [role=button], [tabindex]')) {
    if (el.closest('[hidden]') || el.getAttribute('tabindex') === '-1') continue;
    const target = (el.type === 'checkbox' || el.type === 'radio') ? (el.closest('label, .check') || el) : el;
    const r = target.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    if (r.width < 43.5 || r.height < 43.5) {
      out.push(`${el.tagName.toLowerCase()}${el.className ? '.' + String(el.className).trim().split(/\\s+/).join('.') : ''} `
        + `"${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return out;
}"""


def identifiers(text: str, lang: str, extra_ok: set[str]) -> list[str]:
    """Program identifiers in a screen's text; on a Korean screen, English words too."""
    text = _URL.sub(" ", text)
    for ok in extra_ok:
        text = text.replace(ok, " ")
    found = [*_CAMEL.findall(text), *_SNAKE.findall(text), *_RAW.findall(text)]
    if lang == "ko":
        # A single capital is a name, not a word: King Up!'s characters A–M.
        found += [w for w in _LATIN.findall(text) if w not in LATIN_OK | extra_ok and not (len(w) == 1 and w.isupper())]
    return sorted(set(found))


def axe(page: Page) -> list[str]:
    """axe-core's violations on the page as it is now (WCAG 2.1 A/AA and best practice)."""
    if not AXE.exists():
        skip_or_fail(f"{AXE} missing: run npm ci (axe-core is a devDependency)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # Evaluated, not a <script>: the app's CSP allows no inline script.
        page.evaluate(AXE.read_text("utf-8") + "\n;0")
    result = page.evaluate("""async () => {
      const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
      return r.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ' ' + (n.failureSummary || '').split('\\n').slice(1, 2).join('')).join(' | ')}`);
    }""")
    return list(result)


def check_screen(page: Page, lang: str, screen: str, extra_ok: set[str] = frozenset()) -> list[str]:
    """Screenshot, identifiers (Korean), axe and target sizes of one screen: the problems found."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(150)  # let a re-render after the last push settle
    scheme = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'")
    screen = f"{screen}-{lang}-{scheme}"
    lang_of = lang
    page.screenshot(path=str(SHOTS / f"{screen}.png"), full_page=True)
    problems = [f"{screen} axe {v}" for v in axe(page)]
    problems += [f"{screen} small target {s}" for s in page.evaluate(_SMALL_JS)]
    words = identifiers(page.evaluate(_TEXTS_JS), lang_of, set(extra_ok))
    problems += [f"{screen} identifier {w!r}" for w in words]
    return problems


# --- driving the tables through the API ----------------------------------------------------


def seat_table(base: str, game: str) -> tuple[str, list[str]]:
    """A table of four: 민수 (host), Bora, 지훈, 유나; their tokens in seat order."""
    res = call(base, "POST", "/api/tables", {"game": game, "name": NAMES[0], "options": OPTIONS[game]})
    table, tokens = res["table"], [res["player"]["token"]]
    for name in NAMES[1:]:
        tokens.append(call(base, "POST", f"/api/tables/{table}/players", {"name": name})["player"]["token"])
    return table, tokens


def first_action(base: str, table: str, tokens: list[str], game: str) -> None:
    """One game action by a seat other than the host's, for the host's undo to name."""
    if game == "camelup":
        tok = next(t for t in tokens if any(a["type"] == "pyramid" for a in snapshot(base, table, t)["legal"]))
        send(base, table, tok, {"type": "pyramid"})
    elif game == "kingup":
        send(base, table, tokens[1], {"type": "goal", "characters": list("HIJKLM")})
    else:
        sheets = random_sheets(snapshot(base, table)["view"], random.Random(table), players=len(tokens))
        send(base, table, tokens[1], {"type": "numbers", "numbers": sheets[1]})


def play_camelup(base: str, table: str, tokens: list[str]) -> None:
    """Everyone rolls the pyramid until the race ends (the host moves legs on)."""
    for _ in range(400):
        if snapshot(base, table)["status"] == "over":
            return
        for tok in tokens:
            legal = {a["type"]: a for a in snapshot(base, table, tok)["legal"]}
            for kind in ("pyramid", "next_leg", "next_round"):
                if kind in legal:
                    send(base, table, tok, {"type": kind})
                    break
            else:
                continue
            break
    raise AssertionError("the race did not end")


def play_kingup(base: str, table: str, tokens: list[str]) -> None:
    """The one score-only round: Bora records her card, the host enters the board and the others."""
    send(base, table, tokens[1], {"type": "goal", "characters": list("HIJKLM")})
    board = {"A": "throne", "B": 5, "C": 5, "D": 5, "E": 4, "F": 4, "G": 3,
             "H": "eliminated", "I": "eliminated", "J": "eliminated", "K": "eliminated",
             "L": "eliminated", "M": "eliminated"}
    goals = {"p1": list("ABCDEF"), "p3": list("BCDEFG"), "p4": list("CDEFGH")}
    send(base, table, tokens[0], {"type": "score_round", "board": board, "goals": goals})


def countup_round(base: str, table: str, tokens: list[str], rng: random.Random) -> None:
    view = snapshot(base, table)["view"]
    for tok, nums in zip(tokens, random_sheets(view, rng, players=len(tokens)), strict=True):
        send(base, table, tok, {"type": "numbers", "numbers": nums})
    send(base, table, tokens[0], {"type": "call", "until": "end"})


def play_countup(base: str, table: str, tokens: list[str], rng: random.Random) -> None:
    for _ in range(4):
        if snapshot(base, table)["status"] == "over":
            return
        countup_round(base, table, tokens, rng)
        if snapshot(base, table)["status"] != "over":
            send(base, table, tokens[0], {"type": "next_round"})
    assert snapshot(base, table)["status"] == "over"


# --- the screens -------------------------------------------------------------------------


def open_panel(page: Page, which: str) -> None:
    btn = page.locator(f"button[aria-controls='{which}-panel']")
    if btn.get_attribute("aria-expanded") != "true":
        btn.click()
    expect(page.locator(f"#{which}-panel")).to_be_visible()


SCHEMES = ["light", "dark"]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("game", ["camelup", "kingup", "countup"])
def test_every_screen_of_a_game(phone, server, games, game, scheme):
    if not any(g["name"] == game for g in games):
        skip_or_fail(f"{game} is not registered")
    table, tokens = seat_table(server, game)
    pages = {"ko": phone(LANGS["ko"], color_scheme=scheme), "en": phone(LANGS["en"], color_scheme=scheme)}
    open_as(pages["ko"], table, tokens[0])
    open_as(pages["en"], table, tokens[1])
    code = snapshot(server, table)["code"]
    problems: list[str] = []

    # The lobby with the rules open: the changed rules in words, all of them one tap away.
    for lang, page in pages.items():
        rules = page.locator("section.rules")
        expect(rules.locator(".rules-changed li")).to_have_count(len(OPTIONS[game]))
        rules.locator("details.rules-all > summary").click()
        expect(rules.locator(".rules-list li").first).to_be_visible()
        problems += check_screen(page, lang, f"{game}-lobby", {code})

    send(server, table, tokens[0], {"type": "start"})
    for lang, page in pages.items():
        expect(page.locator("#players-panel")).to_be_attached()
        page.wait_for_timeout(300)
        problems += check_screen(page, lang, f"{game}-table")
        open_panel(page, "players")
        problems += check_screen(page, lang, f"{game}-players")
    # The host's undo asks first, above the bar, naming what it takes back: one
    # game action, which it then takes back (the game goes on from its start).
    ko = pages["ko"]
    first_action(server, table, tokens, game)
    ko.locator("button[aria-controls='undo-sheet']").click()
    expect(ko.locator("#undo-sheet .undo-what")).to_contain_text("되돌릴 행동: ")
    problems += check_screen(ko, "ko", f"{game}-undo")
    version = snapshot(server, table)["version"]
    ko.locator("#undo-sheet").get_by_role("button", name="네, 되돌려요").click()
    expect(ko.locator("#undo-sheet")).to_be_hidden()
    assert snapshot(server, table)["version"] == version + 1

    if game == "camelup":
        # Each phone's own turn (issue 41): the board, the last die and the
        # actions in view, the scores folded behind "Show scores".
        for lang, seat in (("ko", "p1"), ("en", "p2")):
            for _ in range(8):
                view = snapshot(server, table)["view"]
                if view["current_player"] == seat and view["tents"]:
                    break
                tok = tokens[int(view["current_player"][1:]) - 1]
                send(server, table, tok, {"type": "pyramid"})
            page = pages[lang]
            expect(page.locator(".cm-actions.my-turn")).to_be_visible()
            expect(page.locator(".turn-fold")).to_be_visible()
            problems += check_screen(page, lang, f"{game}-turn")
        play_camelup(server, table, tokens)
    elif game == "kingup":
        play_kingup(server, table, tokens)
    else:
        play_countup(server, table, tokens, random.Random(f"screens-{table}"))

    for lang, page in pages.items():
        expect(page.locator(".banner.over")).to_be_visible()
        page.evaluate("window.scrollTo(0, 0)")
        problems += check_screen(page, lang, f"{game}-results")
        open_panel(page, "history")
        expect(page.locator("#history-panel .history-round").first).to_be_visible()
        # The score pad (issue 14 item 5): Camel Up by leg, no lone called number.
        heads = page.locator("#history-panel .history-round h3").all_inner_texts()
        if game == "camelup":
            problems += [f"{game}-history-{lang} heading {h!r}" for h in heads if "라운드" in h or "Round" in h]
        lines = page.locator("#history-panel li").all_inner_texts()
        problems += [f"{game}-history-{lang} lone number {x!r}" for x in lines if x.strip().rstrip(".").isdigit()]
        problems += check_screen(page, lang, f"{game}-history")

    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_platform_screens(phone, server, games, scheme):
    """Home (with a game's options open), the join form and the not-found page."""
    problems: list[str] = []
    game = next((g for g in games if g["name"] == "kingup"), games[0])
    table, _ = seat_table(server, game["name"]) if game["name"] in OPTIONS else (None, None)
    for lang, locale in LANGS.items():
        page = phone(locale, color_scheme=scheme)
        page.goto("/")
        expect(page.locator("#home-game")).to_be_enabled()
        page.locator("#home-game").select_option(value=str(games.index(game)))
        page.locator("details.options > summary").click()
        problems += check_screen(page, lang, "home")
        if table:
            page.goto(f"/t/{table}")
            expect(page.locator("form input").first).to_be_visible()
            problems += check_screen(page, lang, "join")
        # A table that does not exist (mistyped paths outside /t/ are the server's, issue 14 item 3).
        page.goto("/t/nosuchtable")
        expect(page.locator(".notfound")).to_be_visible()
        problems += check_screen(page, lang, "notfound")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_evening_screens(phone, server, games, scheme):
    """An evening (issue 41): the lobby after play again says which game comes
    next and who set it up; the second game's results show the evening's table."""
    if not any(g["name"] == "kingup" for g in games):
        skip_or_fail("kingup is not registered")
    table, tokens = seat_table(server, "kingup")
    pages = {"ko": phone(LANGS["ko"], color_scheme=scheme), "en": phone(LANGS["en"], color_scheme=scheme)}
    open_as(pages["ko"], table, tokens[0])
    open_as(pages["en"], table, tokens[1])
    problems: list[str] = []
    send(server, table, tokens[0], {"type": "start"})
    play_kingup(server, table, tokens)
    send(server, table, tokens[0], {"type": "play_again"})
    code = snapshot(server, table)["code"]
    for lang, page in pages.items():
        expect(page.locator("#evening-next")).to_be_visible()
        problems += check_screen(page, lang, "kingup-lobby-evening", {code})
    send(server, table, tokens[0], {"type": "start"})
    play_kingup(server, table, tokens)
    for lang, page in pages.items():
        expect(page.locator("#evening tbody tr")).to_have_count(len(NAMES))
        page.evaluate("window.scrollTo(0, 0)")
        problems += check_screen(page, lang, "kingup-results-evening")
    assert not problems, "\n".join(problems)
