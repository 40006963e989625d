"""History lines for events, in Korean and English."""

from __future__ import annotations

from collections.abc import Callable

from engines.base import SEAT_EVENTS, Event, describe_seat_event
from engines.kingup.constants import LEVEL_NAMES
from engines.korean import josa, nim, particle

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
        return f"{nim(p, '이/가')} {josa(c, '을/를')} {where}에 놓았습니다."
    return f"{p} placed {c} on {where}."


def _placement_done(e: Event, lang: str, names: Names) -> str:
    spare, nxt = ", ".join(e["leftovers"]), names.get(e["next"], e["next"])
    if lang == "ko":
        return f"배치 단계 끝. 남은 캐릭터는 0층(하인)으로: {spare}. 이동 단계는 {nim(nxt)}부터."
    return f"Placement over; left-overs to level 0 (Servants): {spare}. {nxt} moves first."


def _moved(e: Event, lang: str, names: Names) -> str:
    p, c = names.get(e["player"], e["player"]), e["char"]
    if lang == "ko":
        # The particle follows 층, not the level's name in brackets after it.
        to = _level(lang, e["to"]) + particle(f"{e['to']}층", "으로/로")
        return f"{nim(p, '이/가')} {josa(c, '을/를')} {e['from']}층에서 {to} 올렸습니다."
    return f"{p} moved {c} up from level {e['from']} to {_level(lang, e['to'])}."


def _nominated(e: Event, lang: str, names: Names) -> str:
    p, c = names.get(e["player"], e["player"]), e["char"]
    if lang == "ko":
        return f"{nim(p, '이/가')} {josa(c, '을/를')} 왕좌에 올리고 왕관을 가져갑니다. 왕의 선출 투표!"
    return f"{p} moved {c} to the throne and takes the crown. Election of the King!"


def _votes_revealed(e: Event, lang: str, names: Names) -> str:
    c = e["candidate"]
    if e["result"] == "crowned":
        if lang == "ko":
            return f"투표 공개: 모두 찬성. {josa(c, '이/가')} 왕이 되었습니다! 라운드 종료."
        return f"Votes revealed: all Yes. {c} is King! The round ends."
    no = _join(names, [p for p, v in e["votes"].items() if v == "no"], lang)
    nxt = names.get(e["next"], e["next"])
    if lang == "ko":
        return f"투표 공개: 반대 {no}. {josa(c, '은/는')} 성에서 쫓겨났습니다. 다음은 {nim(nxt)} 차례."
    return f"Votes revealed: No from {no}. {c} is eliminated. {nxt} plays next."


#: Lines that name only the acting seat, (ko, en): ``{p}`` is the name (in
#: Korean with 님 and its particle), the other fields the event's.
_SEAT_LINES = {
    "vote_cast": ("{p} 투표했습니다 ({count}/{of}).", "{p} voted ({count} of {of})."),
    "vote_opened": (
        "{p} 봉인한 표를 열었습니다 ({count}/{of}).",
        "{p}'s phone opened its sealed vote ({count} of {of}).",
    ),
    "goal_recorded": ("{p} 비밀목표 카드를 기록했습니다.", "{p} recorded their secret goal card."),
    "goal_drawn": (
        "{p} 가상 덱에서 비밀목표 카드를 받았습니다.",
        "{p} drew a secret goal card from the virtual deck.",
    ),
    "board_entered": (
        "{p} {round}라운드의 최종 보드를 입력했습니다.",
        "{p} entered the final board of round {round}.",
    ),
}


def _seat_line(e: Event, lang: str, names: Names) -> str:
    p = names.get(e["player"], e["player"])
    ko, en = _SEAT_LINES[e["type"]]
    fields = {k: v for k, v in e.items() if k != "type"}
    return ko.format(**fields, p=nim(p, "이/가")) if lang == "ko" else en.format(**fields, p=p)


def _seat_skipped(e: Event, lang: str, names: Names) -> str:
    p = names.get(e["seat"], e["seat"])
    if lang == "ko":
        return f"{nim(p, '이/가')} 자리에 없어 그 표는 찬성으로 칩니다 ({e['count']}/{e['of']})."
    return f"{p} is away: their vote counts as Yes ({e['count']} of {e['of']})."


def _votes_opening(e: Event, lang: str, names: Names) -> str:
    who = _join(names, e["players"], lang)
    if lang == "ko":
        return f"모든 표가 들어왔습니다. {who}의 휴대폰이 봉인한 표를 엽니다."
    return f"Every vote is in: {who}'s phones open their sealed votes."


def _vote_withdrawn(e: Event, lang: str, names: Names) -> str:
    p = names.get(e["seat"], e["seat"])
    if lang == "ko":
        return f"{nim(p)}의 휴대폰이 표를 열지 못해, 봉인은 열지 않은 채 두고 다시 투표합니다."
    return f"{p}'s phone did not open its vote: that seal stays shut, and {p} votes again."


def _round_scored(e: Event, lang: str, names: Names) -> str:
    scores = _scores(names, e["scores"])
    rule33 = _join(names, e["rule33"], lang) if e["rule33"] else ""
    if lang == "ko":
        line = f"{e['round']}라운드 점수 (왕 {e['king']}): {scores}."
        return line + (f" 특별 3라운드 득점 규칙: {rule33} 0점 → 33점." if rule33 else "")
    line = f"Round {e['round']} scores (King {e['king']}): {scores}."
    return line + (f" Round-3 rule: {rule33} scored 0, which becomes 33." if rule33 else "")


#: The words of the game's end, per language.
_GAME_OVER = {
    "ko": {
        "line": "게임 종료! {who}: {winners}.", "shared": "공동 승리", "alone": "승리",
        "survivors": " 동점이라 3라운드 종료 시 보드에 남은 비밀목표 캐릭터 수로 가렸습니다.",
        "tie": " 동점은 공동 승리입니다.",
    },
    "en": {
        "line": "Game over! {who}: {winners}.", "shared": "Shared victory", "alone": "Winner",
        "survivors": " The tie was broken by goal characters still on the board after the last round.",
        "tie": " Ties are shared.",
    },
}  # fmt: skip


def _game_over(e: Event, lang: str, names: Names) -> str:
    words = _GAME_OVER[lang]
    best = max(e["totals"].values(), default=0)
    winners = f"{_join(names, e['winners'], lang)} ({best})"
    line = words["line"].format(who=words["shared" if e["shared"] else "alone"], winners=winners)
    tb = e.get("tie_break")
    if tb:
        line += words["survivors" if tb["rule"] == "survivors" else "tie"]
    return line


def _round_started(e: Event, lang: str, names: Names) -> str:
    start = e.get("start")
    if lang == "ko":
        line = f"{e['round']}라운드 시작."
        return line + (f" 시작 플레이어: {nim(names.get(start, start))}." if start else "")
    line = f"Round {e['round']} begins."
    return line + (f" {names.get(start, start)} starts." if start else "")


_TEXT: dict[str, Callable[[Event, str, Names], str]] = {
    "placed": _placed,
    "placement_done": _placement_done,
    "moved": _moved,
    "nominated": _nominated,
    "vote_cast": _seat_line,
    "seat_skipped": _seat_skipped,
    "vote_opened": _seat_line,
    "votes_opening": _votes_opening,
    "vote_withdrawn": _vote_withdrawn,
    "votes_revealed": _votes_revealed,
    "goal_recorded": _seat_line,
    "goal_drawn": _seat_line,
    "board_entered": _seat_line,
    "round_scored": _round_scored,
    "game_over": _game_over,
    "round_started": _round_started,
}

EVENT_TYPES: tuple[str, ...] = tuple(_TEXT)
#: The history's lines: the end of placement, a vote's outcome, a round's
#: scores, the game's end and the next round each on a line of their own.
BREAKS = frozenset(
    {"placement_done", "votes_revealed", "round_scored", "game_over", "round_started"}
)
OPENERS = {"round_started": "round"}


def describe(event: Event, lang: str, names: Names) -> str:
    lang = "ko" if lang == "ko" else "en"
    if event["type"] in SEAT_EVENTS:
        return describe_seat_event(event, lang, names)
    return _TEXT[event["type"]](event, lang, names)
