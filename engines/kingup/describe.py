"""History lines for events, in Korean and English."""

from __future__ import annotations

from collections.abc import Callable

from engines.base import Event, describe_paper_seat
from engines.kingup.constants import LEVEL_NAMES

Names = dict[str, str]


def _level(lang: str, level: int | str) -> str:
    if level == "throne" or level == 6:
        return "왕좌" if lang == "ko" else "the throne"
    name = LEVEL_NAMES[lang][int(level)]
    return f"{level}층({name})" if lang == "ko" else f"level {level} ({name})"


def _join(names: Names, players: list[str], lang: str) -> str:
    return ", ".join(names.get(p, p) for p in players) or ("없음" if lang == "ko" else "nobody")


def _scores(names: Names, scores: dict[str, int]) -> str:
    return ", ".join(f"{names.get(p, p)} {s}" for p, s in scores.items())


def _placed(e: Event, lang: str, names: Names) -> str:
    p, c, where = names.get(e["player"], e["player"]), e["char"], _level(lang, e["level"])
    if lang == "ko":
        return f"{p}님이 {c}을(를) {where}에 놓았습니다."
    return f"{p} placed {c} on {where}."


def _placement_done(e: Event, lang: str, names: Names) -> str:
    spare, nxt = ", ".join(e["leftovers"]), names.get(e["next"], e["next"])
    if lang == "ko":
        return f"배치 단계 끝. 남은 캐릭터는 0층(하인)으로: {spare}. 이동 단계는 {nxt}님부터."
    return f"Placement over; left-overs to level 0 (Servants): {spare}. {nxt} moves first."


def _moved(e: Event, lang: str, names: Names) -> str:
    p, c = names.get(e["player"], e["player"]), e["char"]
    if lang == "ko":
        # 층 takes 으로; the throne never appears here (that is a nomination).
        return f"{p}님이 {c}을(를) {e['from']}층에서 {_level(lang, e['to'])}으로 올렸습니다."
    return f"{p} moved {c} up from level {e['from']} to {_level(lang, e['to'])}."


def _nominated(e: Event, lang: str, names: Names) -> str:
    p, c = names.get(e["player"], e["player"]), e["char"]
    if lang == "ko":
        return f"{p}님이 {c}을(를) 왕좌에 올리고 왕관을 가져갑니다. 왕의 선출 투표!"
    return f"{p} moved {c} to the throne and takes the crown. Election of the King!"


def _vote_cast(e: Event, lang: str, names: Names) -> str:
    p = names.get(e["player"], e["player"])
    if lang == "ko":
        return f"{p}님이 투표했습니다 ({e['count']}/{e['of']})."
    return f"{p} voted ({e['count']} of {e['of']})."


def _votes_revealed(e: Event, lang: str, names: Names) -> str:
    c = e["candidate"]
    if e["result"] == "crowned":
        if lang == "ko":
            return f"투표 공개: 모두 찬성. {c}이(가) 왕이 되었습니다! 라운드 종료."
        return f"Votes revealed: all Yes. {c} is King! The round ends."
    no = _join(names, [p for p, v in e["votes"].items() if v == "no"], lang)
    nxt = names.get(e["next"], e["next"])
    if lang == "ko":
        return f"투표 공개: 반대 {no}. {c}은(는) 성에서 쫓겨났습니다. 다음은 {nxt}님 차례."
    return f"Votes revealed: No from {no}. {c} is eliminated. {nxt} plays next."


def _goal_recorded(e: Event, lang: str, names: Names) -> str:
    p = names.get(e["player"], e["player"])
    if lang == "ko":
        return f"{p}님이 비밀목표 카드를 기록했습니다."
    return f"{p} recorded their secret goal card."


def _goal_drawn(e: Event, lang: str, names: Names) -> str:
    p = names.get(e["player"], e["player"])
    if lang == "ko":
        return f"{p}님이 가상 덱에서 비밀목표 카드를 받았습니다."
    return f"{p} drew a secret goal card from the virtual deck."


def _board_entered(e: Event, lang: str, names: Names) -> str:
    p = names.get(e["player"], e["player"])
    if lang == "ko":
        return f"{p}님이 {e['round']}라운드의 최종 보드를 입력했습니다."
    return f"{p} entered the final board of round {e['round']}."


def _round_scored(e: Event, lang: str, names: Names) -> str:
    scores = _scores(names, e["scores"])
    rule33 = _join(names, e["rule33"], lang) if e["rule33"] else ""
    if lang == "ko":
        line = f"{e['round']}라운드 점수 (왕 {e['king']}): {scores}."
        return line + (f" 특별 3라운드 득점 규칙: {rule33} 0점 → 33점." if rule33 else "")
    line = f"Round {e['round']} scores (King {e['king']}): {scores}."
    return line + (f" Round-3 rule: {rule33} scored 0, which becomes 33." if rule33 else "")


def _game_over(e: Event, lang: str, names: Names) -> str:
    best = max(e["totals"].values(), default=0)
    winners = f"{_join(names, e['winners'], lang)} ({best})"
    tb = e.get("tie_break")
    if lang == "ko":
        line = f"게임 종료! {'공동 ' if e['shared'] else ''}승리: {winners}."
        if tb and tb["rule"] == "survivors":
            line += " 동점이라 3라운드 종료 시 보드에 남은 비밀목표 캐릭터 수로 가렸습니다."
        elif tb:
            line += " 동점은 공동 승리입니다."
        return line
    line = f"Game over! {'Shared victory' if e['shared'] else 'Winner'}: {winners}."
    if tb and tb["rule"] == "survivors":
        line += " The tie was broken by goal characters still on the board after the last round."
    elif tb:
        line += " Ties are shared."
    return line


def _round_started(e: Event, lang: str, names: Names) -> str:
    start = e.get("start")
    if lang == "ko":
        line = f"{e['round']}라운드 시작."
        return line + (f" 시작 플레이어: {names.get(start, start)}님." if start else "")
    line = f"Round {e['round']} begins."
    return line + (f" {names.get(start, start)} starts." if start else "")


_TEXT: dict[str, Callable[[Event, str, Names], str]] = {
    "placed": _placed,
    "placement_done": _placement_done,
    "moved": _moved,
    "nominated": _nominated,
    "vote_cast": _vote_cast,
    "votes_revealed": _votes_revealed,
    "goal_recorded": _goal_recorded,
    "goal_drawn": _goal_drawn,
    "board_entered": _board_entered,
    "round_scored": _round_scored,
    "game_over": _game_over,
    "round_started": _round_started,
}

EVENT_TYPES: tuple[str, ...] = tuple(_TEXT)


def describe(event: Event, lang: str, names: Names) -> str:
    lang = "ko" if lang == "ko" else "en"
    if event["type"] == "paper_seat":
        return describe_paper_seat(event, lang, names)
    return _TEXT[event["type"]](event, lang, names)
