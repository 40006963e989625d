"""History lines for the public events, in Korean and English."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.base import SEAT_EVENTS, Event, describe_seat_event
from engines.history import HistoryText, cut
from engines.korean import nim

_REASON = {
    "ko": {
        "two_stars": "☆20 두 번",
        "total": "합산 점수",
        "tie_break": "동률, 가장 높은 라운드 점수",
        "shared": "완전 동률, 공동 승리",
    },
    "en": {
        "two_stars": "two ☆20",
        "total": "highest total",
        "tie_break": "tie broken by the best round scores",
        "shared": "complete tie, shared victory",
    },
}


def _join(items: list[str], lang: str) -> str:
    if lang == "ko":
        return "·".join(items)
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _declaration(ev: Event, lang: str, name: Callable[[Any], str]) -> str:
    """The part of a call that speaks of hands raised on it."""
    who = [name(p) for p in ev.get("declared") or ev.get("players") or []]
    if not who:
        return ""
    if len(who) == 1:
        return f"{who[0]} 선언, 리더" if lang == "ko" else f"{who[0]} declares and leads"
    text = (
        f"{_join(who, lang)} 동시 선언 (X표시)" if lang == "ko"
        else f"{_join(who, lang)} collide (X)"
    )
    if ev.get("voided"):
        text += ", 위험구간: 보너스 없음" if lang == "ko" else ", danger zone: no bonus"
    return text


def describe(event: Event, lang: str, names: dict[str, str]) -> str:
    ko = lang == "ko"
    if event.get("type") in SEAT_EVENTS:
        return describe_seat_event(event, lang, names)

    def name(p: Any) -> str:
        return names.get(p, str(p)) if p is not None else ("호스트" if ko else "the host")

    kind = event.get("type")
    r = event.get("round")
    if kind == "restriction_revealed":
        digits = " ".join(map(str, event["digits"]))
        banned = ", ".join(map(str, event["restricted"]))
        return (
            f"제한카드 {digits}: 끝자리 {banned} 금지." if ko
            else f"Restriction card {digits}: no number may end in {banned}."
        )
    if kind == "danger_revealed":
        lo, hi = event["range"]
        return f"위험구간 {lo}–{hi}." if ko else f"Danger zone {lo}–{hi}."
    if kind == "sheet_locked":
        p = name(event["player"])
        return f"{nim(p, '이/가')} 숫자 5개를 적었습니다." if ko else f"{p} locked their 5 numbers."
    if kind == "seat_skipped":
        p = name(event["seat"])
        return (
            f"{nim(p, '이/가')} {r}라운드를 쉽니다: 숫자 없이 라운드 점수 0점." if ko
            else f"{p} sits out round {r}: no numbers, a round score of 0."
        )
    if kind == "count_ready":
        return (
            "모두 숫자를 적었습니다. 카운트 업 시작!" if ko
            else "Every sheet is locked: the count can start."
        )
    if kind in ("called", "declared"):
        # A quiet number is just the number, as it was called aloud.
        said = _declaration(event, lang, name)
        return f"{event['number']}{': ' + said if said else ''}."
    if kind == "round_ended":
        n = event["number"]
        if event.get("end") == "marker20":
            return (
                f"{r}라운드 종료: {n}에서 마커가 20에 도달." if ko
                else f"Round {r} ends at {n}: a marker reached 20."
            )
        return f"{r}라운드 종료: {n}까지 셌습니다." if ko else f"Round {r} ends at {n}."
    if kind == "bonus_entered":
        p = name(event["player"])
        pts = event["points"]
        return f"{p} 보너스 {pts}점." if ko else f"{p}: bonus {pts}."
    if kind == "round_scored":
        scores = ", ".join(f"{name(p)} {s}" for p, s in event["scores"].items())
        stars = _join([name(p) for p in event["stars"]], lang)
        if ko:
            return f"{r}라운드 점수: {scores}." + (f" ☆20: {stars}." if stars else "")
        return f"Round {r} scores: {scores}." + (f" ☆20: {stars}." if stars else "")
    if kind == "game_over":
        who = _join([name(p) for p in event["winners"]], lang)
        why = _REASON["ko" if ko else "en"].get(event["reason"], event["reason"])
        return f"게임 종료! 승리: {who} ({why})." if ko else f"Game over! {who} won ({why})."
    if kind == "caller_set":
        if event["seat"] is None:
            return "호스트가 카운트를 부릅니다." if ko else "The host calls the count."
        p = name(event["seat"])
        return f"{nim(p, '이/가')} 카운트를 부릅니다." if ko else f"{p} calls the count."
    if kind == "round_started":
        return f"{r}라운드 시작." if ko else f"Round {r} begins."
    return str(kind)


#: The history's lines: every call, the count's end, the scores, the cards and
#: the next round each on a line of their own.
_CALLS = frozenset({"called", "declared"})
BREAKS = _CALLS | {
    "restriction_revealed", "danger_revealed", "count_ready", "round_ended", "bonus_entered",
    "round_scored", "game_over", "caller_set", "round_started",
}
OPENERS = {"round_started": "round"}


def history_lines(events: list[Event], lang: str, names: dict[str, str]) -> list[HistoryText]:
    """A call's line carries its number; a number on which nobody declared is
    ``quiet`` (the server folds a stretch of them; the count's end, if it ends
    there, has a line of its own).

    >>> [(x.text, x.count, x.quiet) for x in history_lines(
    ...     [{"type": "called", "round": 1, "number": 12, "declared": [], "end": None}], "en", {})]
    [('12.', 12, True)]
    """
    out = []
    for rnd, piece in cut(events, BREAKS, OPENERS):
        text = " ".join(describe(ev, lang, names) for ev in piece)
        first = piece[0]
        if first.get("type") in _CALLS:
            quiet = first["type"] == "called" and not first.get("declared") and len(piece) == 1
            out.append(HistoryText(text, rnd, int(first["number"]), quiet))
        else:
            out.append(HistoryText(text, rnd))
    return out


def stretch(first: int, last: int, by: str, lang: str) -> str:
    """Numbers counted aloud with nothing happening on them, as one line.

    >>> stretch(12, 17, "민준", "ko"), stretch(12, 17, "Sam", "en"), stretch(5, 5, "Bo", "en")
    ('12–17: 민준님 카운트', '12–17 counted by Sam', '5 counted by Bo')
    """
    span = f"{first}–{last}" if last > first else str(first)
    return f"{span}: {nim(by)} 카운트" if lang == "ko" else f"{span} counted by {by}"
