"""An evening, not one game (issue 41): after play again, the guests' phones
say which game comes next and who set it up, and the results of the second
game show every game of the evening and the running total. Chromium here,
Safari's engine in test_evening_webkit.py."""

from __future__ import annotations

from playwright.sync_api import expect

from e2e.test_results import BOARD, GOALS, api

#: The second game: Bo 24 a round, Mina 15, Host 17 (the first: Host 24, Mina 15, Bo 17).
SECOND = {"p1": "AGMEJF", "p2": "GKHFJL", "p3": "DABCIL"}


def kingup_table(server: str) -> tuple[str, list[str]]:
    """A King Up! table (scores only): Host, Mina, Bo, and their tokens."""
    made = api(server, "POST", "/api/tables", {"game": "kingup", "name": "Host",
                                               "options": {"playMode": "score_only"}})
    tokens = [made["player"]["token"]]
    for name in ("Mina", "Bo"):
        tokens.append(api(server, "POST", f"/api/tables/{made['table']}/players", {"name": name})["player"]["token"])
    return made["table"], tokens


def play(server: str, table: str, host: str, goals: dict[str, str], game: int) -> None:
    def act(action: dict, rid: str) -> None:
        api(server, "POST", f"/api/tables/{table}/actions", {"action": action, "request_id": f"g{game}{rid}"}, host)

    act({"type": "start"}, "s")
    for r in range(3):
        if r:
            act({"type": "next_round"}, f"n{r}")
        act({"type": "score_round", "board": BOARD, "goals": {p: list(g) for p, g in goals.items()}}, f"r{r}")


def open_seat(page, table: str, token: str) -> None:
    page.goto("/")
    page.evaluate("([t, tok]) => localStorage.setItem(`tablemate.token.${t}`, tok)", [table, token])
    page.goto(f"/t/{table}")


def test_the_evening_adds_up(phone, server) -> None:
    table, (host_token, mina, _) = kingup_table(server)
    play(server, table, host_token, GOALS, 1)
    host = phone("en-US")
    open_seat(host, table, host_token)
    guest = phone("ko-KR")
    open_seat(guest, table, mina)
    expect(host.locator("#results")).to_be_visible()
    expect(host.locator("#evening")).to_have_count(0)  # one game is not yet an evening

    host.get_by_role("button", name="Play again with the same seats").click()
    expect(guest.locator("#evening-next")).to_have_text("오늘 2번째 게임: Host님이 같은 자리로 준비하고 있어요.")
    expect(host.locator("#evening-next")).to_have_text(
        "Game 2 of the evening: you set it up with the same seats. Start when everyone is here.")

    play(server, table, host_token, SECOND, 2)
    for page, head in ((host, ["Player", "Game 1", "Game 2", "Wins", "Total"]),
                       (guest, ["플레이어", "1번째 게임", "2번째 게임", "승리", "합계"])):
        ev = page.locator("#evening")
        expect(ev.locator("thead th")).to_have_text(head)
        # Host won game 1 (72), Bo game 2 (72): one win each, Host ahead on the total.
        expect(ev.locator("tbody tr")).to_have_count(3)
        expect(ev.locator("tbody tr").nth(0).locator("th, td")).to_have_text(["Host", "72 🏆", "51", "1", "123"])
        expect(ev.locator("tbody tr").nth(1).locator("th, td")).to_have_text(["Bo", "51", "72 🏆", "1", "123"])
        expect(ev.locator("tbody tr").nth(2).locator("th, td")).to_have_text(["Mina", "45", "45", "0", "90"])
    expect(host.locator("#evening-next")).to_have_count(0)
