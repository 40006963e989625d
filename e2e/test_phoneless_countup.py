"""Count Up with three phones and one seat without a phone (issue 17): the seat
writes on paper; the caller pauses, switches to "Entering for: Mina" and taps
her raised hand, once alone (she leads) and once on a phone sheet's number (a
collision); the host enters her bonus. The round's scores equal the engine's,
and no phone ever holds a number of hers or another seat's uncalled one."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.countup_helpers import (
    L,
    Wire,
    allowed,
    check_secrecy,
    enter_sheet,
    options,
    public_snapshot,
)
from e2e.lobby import create_table, join
from e2e.phoneless_helpers import add_phoneless
from engines.countup import ENGINE

LANG = "en"
NAMES = ["Ann", "Bora", "Jin"]
PAPER = "Mina"


def step_to(host: Page, n: int) -> None:
    """Calls one number at a time until ``n`` is the number just called."""
    t = L[LANG]
    while True:
        current = host.locator("#cu-current").inner_text().strip()
        value = int(current) if current.isdigit() else 0
        if value >= n:
            assert value == n, (value, n)
            return
        host.get_by_role("button", name=t["step"]).click()
        expect(host.locator("#cu-current")).to_have_text(str(value + 1))


def test_three_phones_and_a_paper_seat_play_a_round(phone, server):
    t = L[LANG]
    pages: list[Page] = []
    wires: list[Wire] = []
    for _ in NAMES:
        page = phone("en-US")
        wire = Wire()
        wire.attach(page)
        pages.append(page)
        wires.append(wire)
    host = pages[0]
    table = create_table(host, L[LANG]["title"], NAMES[0], LANG, options(LANG, 100))
    for page, name in zip(pages[1:], NAMES[1:], strict=True):
        join(page, f"{server}/t/{table}", name, LANG)
    token = host.evaluate("t => localStorage.getItem(`tablemate.token.${t}`)", table)
    mina = add_phoneless(server, table, token, PAPER)
    host.get_by_role("button", name=t["start_game"]).click()
    for page in pages:
        expect(page.get_by_role("heading", level=1, name=t["title"])).to_be_visible()

    snap = public_snapshot(server, table)
    ids = [p["id"] for p in snap["players"]]
    assert ids[3] == mina and snap["players"][3]["phone"] is False
    view = snap["view"]
    assert view["paper"] == [mina]
    ok = allowed(view)
    sheets = {
        ids[0]: [ok[5], *ok[14:18]],
        ids[1]: [ok[3], *ok[10:14]],
        ids[2]: [ok[7], *ok[18:22]],
    }
    hands = [ok[0], ok[3]]  # Mina alone, then with Bora's phone sheet
    for i, (page, pid) in enumerate(zip(pages, ids[:3], strict=True)):
        enter_sheet(page, LANG, sheets[pid])
        if i == 0:
            # Nobody waits for Mina's sheet: she writes on paper.
            expect(host.locator(f".cu-locked-list li[data-player='{mina}']")).to_contain_text("on paper")
    expect(host.get_by_role("button", name=t["start"])).to_be_enabled()

    for i, n in enumerate(hands):
        step_to(host, n)
        if i == 0:
            # One tap on the caller's own screen: no switching seats mid-count.
            host.get_by_role("button", name=f"{PAPER} declared {n}").click()
            expect(host.get_by_text(f"{PAPER} declared {n}.")).to_be_visible()
            expect(host.get_by_role("button", name=t["step"])).to_be_visible()
            continue
        # The same through "Enter moves for": the screen as Mina's seat.
        host.locator(f"[data-proxy='{mina}']").click()
        expect(host.get_by_text(f"Entering for: {PAPER}")).to_be_visible()
        host.get_by_role("button", name=f"{PAPER} declared {n}").click()
        expect(host.get_by_text(f"{PAPER} declared {n}.")).to_be_visible()
        host.locator("[data-proxy='self']").click()
        expect(host.get_by_role("button", name=t["step"])).to_be_visible()
    for page in pages:
        expect(page.locator(".cu-log li.collision").first).to_contain_text(f"{ok[3]} · Bora, {PAPER} collide (X)")
    host.get_by_role("button", name=t["finish"]).click()
    host.get_by_role("button", name=t["finish_confirm"]).click()

    # Mina's crossed cell: the host reads her bonus off her sheet and enters it.
    expect(host.get_by_role("heading", name=t["bonus_title"])).to_be_visible()
    expect(host.locator(".cu-bonus-row")).to_have_count(1)
    host.get_by_label(t["bonus_for"].format(name=PAPER), exact=True).fill("1")
    host.locator(f".cu-bonus-row[data-player='{mina}']").get_by_role("button", name=t["bonus_send"]).click()
    for page in pages:
        expect(page.get_by_role("heading", name=t["result"].format(round=1))).to_be_visible()

    # The engine, given the same sheets and taps, scores the same round.
    snap = public_snapshot(server, table)
    opts = {**snap["options"], "firstRestrictionCard": view["restriction_card"]}
    state = ENGINE.setup(ids, ENGINE.normalize_options(opts))

    def apply(pid: str, **action) -> None:
        nonlocal state
        state, _ = ENGINE.apply(state, {**action, "player": pid, "host": pid == ids[0]})

    apply(ids[0], type="set_paper", seat=mina)
    for pid, numbers in sheets.items():
        apply(pid, type="numbers", numbers=numbers)
    for n in hands:
        while state.count < n:
            apply(ids[0], type="call")
        apply(mina, type="paper_declare", number=n)
    apply(ids[0], type="call", until="end")
    apply(mina, type="bonus", points=1)
    expected = ENGINE.public_players(state)
    for p in snap["players"]:
        assert p["round_scores"] == expected[p["id"]]["round_scores"], p
    rec = snap["view"]["rounds_played"][-1]["players"][mina]
    assert rec["numbers"] is None and rec["bonus"] == 1 and len(rec["x_cells"]) == 1
    for wire, pid in zip(wires, ids[:3], strict=True):
        assert check_secrecy(wire, pid) > 3
