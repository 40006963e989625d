"""Count Up on three phones through the screens: a full phone-sheet game in
Korean and one in English with the count called at a fast test pace (every
phone shows the engine's round scores and winner, and no phone ever receives
another seat's uncalled numbers), a paper-sheet round where the host taps the
declarations, the live sheet validation in words, and the caller's numerals."""

from __future__ import annotations

import random
import re

from playwright.sync_api import Page, expect

from e2e.countup_helpers import (
    REASONS,
    L,
    Wire,
    check_secrecy,
    enter_sheet,
    options,
    public_snapshot,
    random_sheets,
    replay,
    star_sheets,
)
from e2e.lobby import create_table, join
from e2e.test_turn_in_view import in_view
from engines.countup import ENGINE

NAMES = {"ko": ["민수", "보라", "지훈"], "en": ["Mina", "Bora", "Jin"]}
#: Whether a digit's Korean reading (영 일 이 삼 사 오 육 칠 팔 구) ends in a consonant.
_DIGIT_FINAL = {0: True, 1: True, 2: False, 3: True, 4: False, 5: False, 6: True, 7: True, 8: True, 9: False}


def obj_particle(n: int) -> str:
    """을/를 after a number below 100 (a trailing zero reads 십: a consonant)."""
    return "을" if n % 10 == 0 or _DIGIT_FINAL[n % 10] else "를"


def topic_particle(n: int) -> str:
    """은/는 after a number below 100."""
    return "은" if n % 10 == 0 or _DIGIT_FINAL[n % 10] else "는"

LOCALE = {"ko": "ko-KR", "en": "en-US"}


def seat_up(phone, server: str, lang: str, pace: int, paper: bool = False) -> tuple[str, list[Page], list[Wire]]:
    """Three phones at one Count Up table, started. Every phone's traffic is recorded."""
    pages, wires = [], []
    for _ in range(3):
        page = phone(LOCALE[lang])
        wire = Wire()
        wire.attach(page)
        pages.append(page)
        wires.append(wire)
    table = create_table(pages[0], L[lang]["title"], NAMES[lang][0], lang, options(lang, pace, paper))
    for page, name in zip(pages[1:], NAMES[lang][1:], strict=True):
        join(page, f"{server}/t/{table}", name, lang)
    pages[0].get_by_role("button", name=L[lang]["start_game"]).click()
    for page in pages:
        expect(page.get_by_role("heading", level=1, name=L[lang]["title"])).to_be_visible()
    return table, pages, wires


def scores_on(page: Page, pid: str) -> list[str]:
    row = page.locator(f".cu-table tr[data-player='{pid}']")
    return [c.strip().rstrip("☆") for c in row.locator("td.cu-rs").all_inner_texts() if c.strip()]


def check_round_on_phones(pages: list[Page], lang: str, snap: dict) -> None:
    """Every phone shows the round just scored as the server has it."""
    rec = snap["view"]["rounds_played"][-1]
    for page in pages:
        expect(page.get_by_role("heading", name=L[lang]["result"].format(round=rec["round"]))).to_be_visible()
        for pid, seat in rec["players"].items():
            expect(page.locator(f".cu-res[data-player='{pid}'] .cu-res-score")).to_have_attribute(
                "data-score", str(seat["score"]))
        for p in snap["players"]:
            assert scores_on(page, p["id"]) == [str(s) for s in p["round_scores"]]
            expect(page.locator(f".cu-table tr[data-player='{p['id']}'] td.cu-total")).to_have_text(str(p["total"]))


def play_game(phone, server: str, lang: str, plan: str) -> None:
    """A whole phone-sheet game through the screens, checked against the engine."""
    t = L[lang]
    rng = random.Random(f"countup-{lang}")
    table, pages, wires = seat_up(phone, server, lang, pace=200 if lang == "en" else 100)
    host = pages[0]
    players = [p["id"] for p in public_snapshot(server, table)["players"]]

    # The pace from the table's option, one tap faster on the caller's phone.
    if lang == "en":
        expect(host.locator("#cu-pace")).to_have_text("every 0.2 s")

    sheets: list[dict[str, list[int]]] = []
    for rnd in range(1, 5):
        snap = public_snapshot(server, table)
        assert snap["view"]["phase"] == "entry" and snap["view"]["round"] == rnd
        numbers = star_sheets(snap["view"], rng) if plan == "stars" else random_sheets(snap["view"], rng)
        sheets.append(dict(zip(players, numbers, strict=True)))
        for i, (page, nums) in enumerate(zip(pages, numbers, strict=True)):
            enter_sheet(page, lang, nums)
            if i == 0:
                # Who has locked is public: the others see it at once.
                for other in pages[1:]:
                    expect(other.locator(f".cu-locked-list li[data-player='{players[0]}']")).to_have_class("done")
        start = host.get_by_role("button", name=t["start"])
        expect(start).to_be_enabled()
        if lang == "en" and rnd == 1:
            host.get_by_role("button", name=t["faster"]).click()
            expect(host.locator("#cu-pace")).to_have_text("every 0.1 s")
        start.click()
        # Everyone follows the count: the big number moves on every phone.
        for page in pages:
            expect(page.locator("#cu-current")).not_to_have_text("–")
        if rnd == 1:
            # Pause and resume on the caller's phone; the count holds meanwhile.
            host.get_by_role("button", name=t["pause"], exact=True).click()
            host.wait_for_timeout(300)  # a call already on its way still lands
            held = public_snapshot(server, table)["view"]
            if held["phase"] == "count":
                host.wait_for_timeout(500)
                assert public_snapshot(server, table)["view"]["count"]["value"] == held["count"]["value"]
                expect(host.locator("#cu-current")).to_have_text(str(held["count"]["value"]))
                host.get_by_role("button", name=t["resume"], exact=True).click()
        expect(host.get_by_role("heading", name=t["result"].format(round=rnd))).to_be_visible(timeout=30_000)
        snap = public_snapshot(server, table)
        check_round_on_phones(pages, lang, snap)
        if snap["status"] == "over":
            break
        host.get_by_role("button", name=t["next"]).click()
        for page in pages:
            expect(page.get_by_role("heading", name=t["entry"])).to_be_visible()

    snap = public_snapshot(server, table)
    assert snap["status"] == "over"
    result = snap["view"]["result"]
    rounds = snap["view"]["rounds_played"]
    if plan == "stars":
        # Seat 1's marker reached 20 in rounds 1 and 2: the second ☆20 ends the game.
        assert len(rounds) == 2 and result["ended_by"] == "two_stars" and result["winners"] == [players[0]]

    # The engine alone, fed the same cards and sheets, agrees with every phone.
    state = replay(players, snap["options"], rounds, sheets)
    engine_players = ENGINE.public_players(state)
    for p in snap["players"]:
        assert engine_players[p["id"]]["round_scores"] == p["round_scores"]
        assert engine_players[p["id"]]["total"] == p["total"]
    assert [*state.result.winners] == result["winners"]
    names = dict(zip(players, NAMES[lang], strict=True))
    reason = REASONS[lang][(result["ended_by"], result["reason"])]
    for page in pages:
        winner = page.locator(".cu-winner")
        for w in result["winners"]:
            expect(winner.get_by_role("heading")).to_contain_text(names[w])
        expect(winner).to_contain_text(reason)
        expect(page.get_by_role("button", name=t["next"])).to_have_count(0)

    for wire, pid in zip(wires, players, strict=True):
        assert check_secrecy(wire, pid) > 10


def test_full_game_in_korean(phone, server):
    play_game(phone, server, "ko", plan="stars")


def test_full_game_in_english(phone, server):
    play_game(phone, server, "en", plan="random")


def test_paper_round_host_taps_declarations(phone, server):
    lang = "en"
    t = L[lang]
    table, pages, _ = seat_up(phone, server, lang, pace=100, paper=True)
    host, bora, jin = pages
    ids = [p["id"] for p in public_snapshot(server, table)["players"]]
    view = public_snapshot(server, table)["view"]
    banned = view["restricted_digits"]
    # No entry form on paper: the count can start at once.
    expect(bora.get_by_text("Write 5 numbers on your paper sheet")).to_be_visible()
    expect(bora.get_by_role("heading", name=t["entry"])).to_have_count(0)

    def step_to_free(after: int) -> int:
        """Calls one number at a time until one nobody is barred from writing."""
        while True:
            host.get_by_role("button", name=t["step"]).click()
            n = after + 1
            expect(host.locator("#cu-current")).to_have_text(str(n))
            if n % 10 not in banned:
                return n
            after = n

    first = step_to_free(0)
    # Hands up: Bora alone. The host taps her and records it.
    expect(host.get_by_role("heading", name=t["declare_title"].format(n=first))).to_be_visible()
    host.get_by_role("button", name="Bora", exact=True).click()
    host.get_by_role("button", name=t["record"].format(n=first)).click()
    for page in pages:
        expect(page.locator(f".cu-marker.leading[data-player='{ids[1]}']")).to_be_visible()
    second = step_to_free(first)
    while second - first < 3:
        second = step_to_free(second)
    host.get_by_role("button", name="Bora", exact=True).click()
    host.get_by_role("button", name="Jin", exact=True).click()
    host.get_by_role("button", name=t["record_collision"].format(n=second, count=2)).click()
    for page in pages:
        expect(page.locator(".cu-log li.collision").first).to_contain_text(f"{second} · Bora, Jin collide (X)")
    host.get_by_role("button", name=t["finish"]).click()
    host.get_by_role("button", name=t["finish_confirm"]).click()

    # Bonus points: Jin enters his own (the suggested 1), the host enters Bora's.
    expect(jin.get_by_role("heading", name=t["bonus_title"])).to_be_visible()
    expect(jin.get_by_label(t["bonus_mine"], exact=True)).to_have_value("1")
    # Jin followed the count down the page: his own bonus to enter comes into view
    # (it stood above the screen).
    in_view(jin, ".cu-bonus-row .cu-bonus-input", ".cu-bonus-row .cu-bonus-send")
    expect(host.get_by_label(t["bonus_mine"], exact=True)).to_be_hidden()
    jin.get_by_role("button", name=t["bonus_send"], exact=True).click()
    host.get_by_label(t["bonus_for"].format(name="Bora"), exact=True).fill("3")
    host.locator(f".cu-bonus-row[data-player='{ids[1]}']").get_by_role("button", name=t["bonus_send"]).click()

    for page in pages:
        expect(page.get_by_role("heading", name=t["result"].format(round=1))).to_be_visible()
    snap = public_snapshot(server, table)
    marker = second - first
    assert [p["round_scores"] for p in snap["players"]] == [[0], [marker + 3], [1]]
    check_round_on_phones(pages, lang, snap)
    expect(host.get_by_role("button", name=t["next"])).to_be_visible()
    expect(bora.get_by_text("Waiting for the host to start the next round…")).to_be_visible()


def test_live_validation_in_words_and_spoken_numbers(phone, server):
    table, pages, _ = seat_up(phone, server, "ko", pace=800)
    page = pages[1]
    view = public_snapshot(server, table)["view"]
    bad = next(d for d in view["restricted_digits"] if d)
    good = [n for n in range(11, 49) if n % 10 not in view["restricted_digits"]]
    page.get_by_label("1번", exact=True).fill(str(good[0]))
    page.get_by_label("2번", exact=True).fill(str(good[0]))
    page.get_by_label("3번", exact=True).fill("60")
    page.get_by_label("4번", exact=True).fill(str(20 + bad))
    problems = page.locator("#cu-problems")
    # The particle follows how the number is read (11 십일 → 을, 12 십이 → 를).
    expect(problems).to_contain_text(f"{good[0]}{obj_particle(good[0])} 두 번 적었어요")
    expect(problems).to_contain_text("60: 1부터 49까지만 적을 수 있어요.")
    expect(problems).to_contain_text(f"{20 + bad}: 끝자리 {bad}{topic_particle(bad)} 이번 라운드에 금지예요")
    expect(page.get_by_role("button", name="숫자 잠그기")).to_be_disabled()
    expect(page.locator("#cu-num-2")).to_have_attribute("aria-invalid", "true")
    for i, n in enumerate(good[:5]):
        page.get_by_label(f"{i + 1}번", exact=True).fill(str(n))
    expect(problems).to_have_text("좋아요: 잠글 수 있어요.")
    page.get_by_label("5번", exact=True).fill("")
    expect(problems).to_have_text("숫자 5개를 적으세요 (지금 4개).")
    # English, live: the same problem in the other language.
    page.get_by_role("button", name="English").click()
    expect(problems).to_have_text("Write 5 numbers (4 so far).")

    spoken = page.evaluate("""async () => {
      const m = await import('/games/countup/speech.js');
      return [m.sinoKorean(23), m.sinoKorean(10), m.sinoKorean(11), m.sinoKorean(50), m.sinoKorean(75),
              m.nativeKorean(23), m.englishNumber(23), m.englishNumber(40), m.spokenNumber(17, 'ko'),
              m.spokenNumber(17, 'en')];
    }""")
    assert spoken == ["이십삼", "십", "십일", "오십", "칠십오", "스물셋", "twenty-three", "forty", "십칠", "seventeen"]

    # The caller's voice: on by default on the host's phone, a toggle, and a
    # plain statement of which voice (or the tick) this device uses.
    host = pages[0]
    toggle = host.get_by_role("button", name=L["ko"]["voice_on"])
    for p in pages[1:]:
        enter_sheet(p, "en" if p is page else "ko", good[:5])
    enter_sheet(host, "ko", good[:5])
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(host.locator(".cu-voice-status")).to_have_text(
        re.compile(r"^(음성: .+|이 기기에는 한국어 음성이 없어요: 숫자마다 틱 소리를 내요\.)$"))
    toggle.click()
    expect(host.get_by_role("button", name=L["ko"]["voice_off"])).to_have_attribute("aria-pressed", "false")


def test_manual_cards_danger_zone_and_a_named_caller(phone, server):
    """The host types in the physical cards; the host names another phone as
    the caller; a collision inside the danger zone loses its bonus."""
    t = L["ko"]
    pages = [phone("ko-KR") for _ in range(3)]
    host, bora, jihun = pages
    table = create_table(host, t["title"], "민수", "ko", {
        "제한카드": "실제 카드를 호스트가 입력", "위험구간 규칙 (추가 규칙)": "on", t["pace"]: "100"})
    join(bora, f"{server}/t/{table}", "보라", "ko")
    join(jihun, f"{server}/t/{table}", "지훈", "ko")
    host.get_by_role("button", name=t["start_game"]).click()

    # Nobody writes before the cards are in; the host taps the card's digits.
    expect(bora.get_by_text("호스트가 이번 라운드 카드를 입력하는 중…")).to_be_visible()
    expect(bora.get_by_role("heading", name=t["entry"])).to_have_count(0)
    keypad = host.get_by_role("group", name="제한카드 숫자")
    for d in ("4", "7", "2"):
        keypad.get_by_role("button", name=d, exact=True).click()
    host.get_by_role("button", name="제한카드 공개").click()
    expect(bora.get_by_text("끝자리가 0, 2, 4, 7인 숫자는 쓸 수 없어요.")).to_be_visible()
    expect(bora.get_by_role("heading", name=t["entry"])).to_have_count(0)
    host.get_by_role("button", name="21–30").click()
    host.get_by_role("button", name="위험구간 공개").click()
    for page in pages:
        expect(page.get_by_text("위험구간 21–30: 이 구간의 동시 선언은 보너스 0점.")).to_be_visible()
    view = public_snapshot(server, table)["view"]
    assert view["restriction_card"] == [4, 7, 2] and view["danger"] == [21, 30]

    # 보라's phone calls the count.
    host.get_by_label("카운트를 부르는 휴대폰", exact=True).select_option(label="보라")
    expect(bora.get_by_text("모두 준비되면 보라님의 휴대폰이 카운트를 불러요.")).to_be_visible()
    sheets = [[11, 15, 16, 18, 19], [23, 33, 35, 36, 38], [23, 33, 45, 46, 48]]
    for page, nums in zip(pages, sheets, strict=True):
        enter_sheet(page, "ko", nums)
    expect(host.get_by_text("보라님이 카운트를 부르는 중이에요.")).to_be_visible()
    expect(host.get_by_role("button", name=t["start"])).to_have_count(0)
    bora.get_by_role("button", name=t["start"]).click()
    for page in pages:
        expect(page.get_by_role("heading", name=t["result"].format(round=1))).to_be_visible(timeout=20_000)

    # 12 = 민수 led from 11 to 23; 보라 led 35–45 (10) + the bonus of 33, not of 23.
    snap = public_snapshot(server, table)
    assert [p["round_scores"] for p in snap["players"]] == [[12], [11], [6]]
    check_round_on_phones(pages, "ko", snap)
    voided = jihun.locator(".cu-res[data-player='p2'] .cu-xcell.voided")
    expect(voided.locator("s")).to_have_text("X 23 +1")
    expect(voided).to_contain_text("위험구간 21–30: 보너스 없음")
