"""History lines for events, in Korean and English."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.base import SEAT_EVENTS, Event, describe_seat_event
from engines.korean import josa

COLOUR_NAMES: dict[str, dict[str, str]] = {
    "en": {
        "blue": "blue", "green": "green", "yellow": "yellow", "red": "red", "purple": "purple",
        "orange": "orange", "pink": "pink", "white": "white", "black": "black", "grey": "grey",
    },
    "ko": {
        "blue": "파랑", "green": "초록", "yellow": "노랑", "red": "빨강", "purple": "보라",
        "orange": "주황", "pink": "분홍", "white": "흰색", "black": "검정", "grey": "회색",
    },
}  # fmt: skip
SIDE = {"en": {"cheer": "cheering", "boo": "booing"}, "ko": {"cheer": "응원면", "boo": "야유면"}}
PILE = {
    "en": {"winner": "winner", "loser": "loser"},
    "ko": {"winner": "우승 베팅 칸", "loser": "꼴찌 베팅 칸"},
}


class _Words:
    def __init__(self, event: Event, lang: str, names: Mapping[str, str]) -> None:
        self.lang = lang if lang in COLOUR_NAMES else "en"
        self.names = names
        self.labels: Mapping[str, str] = event.get("colours") or {}

    def who(self, player: Any) -> str:
        return str(self.names.get(player, player)) if player is not None else "?"

    def camel(self, camel: Any) -> str:
        label = self.labels.get(camel, camel)
        return COLOUR_NAMES[self.lang].get(label, str(label))

    def camels(self, camels: Any) -> str:
        return ", ".join(self.camel(c) for c in camels)

    def ko(self) -> bool:
        return self.lang == "ko"


def _leg_bet(e: Event, w: _Words) -> str:
    if w.ko():
        return f"{w.who(e['player'])}: {w.camel(e['camel'])} 레그 베팅 티켓 ({e['value']}) 가져감"
    return f"{w.who(e['player'])} took the {w.camel(e['camel'])} leg betting ticket ({e['value']})"


def _tile(e: Event, w: _Words) -> str:
    side, start = SIDE[w.lang][e["side"]], e.get("from")
    if w.ko():
        line = f"{w.who(e['player'])}: 관중 타일을 {e['space']}칸에 {josa(side, '으로/로')} 놓음"
        return line + (f" ({start}칸에서 옮김)" if start else "")
    line = f"{w.who(e['player'])} put their spectator tile on space {e['space']}, {side}"
    return line + (f" (moved from space {start})" if start else "")


def _die(e: Event, w: _Words) -> str:
    if e["die"] == "grey":
        white = e["color"] == "white"
        if w.ko():
            face = f"{'흰' if white else '검'}{e['value']}"
            return f"{w.who(e['player'])}: 회색 주사위 {face} → {w.camel(e['camel'])} 미친 낙타"
        face = f"{'W' if white else 'B'}{e['value']}"
        return f"{w.who(e['player'])} rolled the grey die: {face}, the {w.camel(e['camel'])} crazy camel moves"
    if w.ko():
        return f"{w.who(e['player'])}: {w.camel(e['die'])} 주사위 {e['value']}"
    return f"{w.who(e['player'])} rolled the {w.camel(e['die'])} die: {e['value']}"


#: The words of a camel's move, per language.
_MOVE = {
    "ko": {
        "tile": "{space}칸 {owner}의 {side}: {owner} +1", "wrapped": "트랙을 한 바퀴 돌아",
        "crossed": "결승선 통과!", "at": "{to}칸 {where}에 도착", "top": "맨 위",
        "under": "맨 아래", "line": "[{unit}] {start}칸 → {parts}",
    },
    "en": {
        "tile": "{owner}'s {side} tile on space {space}: {owner} +1",
        "wrapped": "wrapped around the track", "crossed": "crossed the finish line!",
        "at": "now on space {to}, {where}", "top": "on top", "under": "underneath",
        "line": "[{unit}] from space {start}: {parts}",
    },
}  # fmt: skip


def _moved(e: Event, w: _Words) -> str:
    words = _MOVE[w.lang]
    tile = e.get("tile")
    parts = []
    if tile:
        side = SIDE[w.lang][tile["side"]]
        parts.append(words["tile"].format(space=tile["space"], owner=w.who(tile["owner"]), side=side))
    if e.get("wrapped"):
        parts.append(words["wrapped"])
    if e["crossed"]:
        parts.append(words["crossed"])
    else:
        parts.append(words["at"].format(to=e["to"], where=words["top" if e["on_top"] else "under"]))
    return words["line"].format(unit=w.camels(e["unit"]), start=e["from"], parts=", ".join(parts))


def _finish(e: Event, w: _Words) -> str:
    pile = PILE[w.lang][e["pile"]]
    if w.ko():
        return f"{w.who(e['player'])}: {pile}에 결승 베팅 카드 1장"
    return f"{w.who(e['player'])} placed a finish card on the {pile} pile"


def _partner(e: Event, w: _Words) -> str:
    if w.ko():
        return f"{w.who(e['player'])}: {josa(w.who(e['with']), '과/와')} 베팅 파트너십"
    return f"{w.who(e['player'])} formed a betting partnership with {w.who(e['with'])}"


def _copy(e: Event, w: _Words) -> str:
    choice = e["choice"]
    if w.ko():
        what = {"best": "가장 좋은 티켓", "none": "복사 안 함", "pyramid": "피라미드 티켓"}.get(
            choice, f"{w.camel(e.get('camel'))} {e.get('value')} 티켓"
        )
        return f"{w.who(e['player'])}: 파트너 티켓 복사 선택 - {what}"
    what = {"best": "the best ticket", "none": "nothing", "pyramid": "a pyramid ticket"}.get(
        choice, f"the {w.camel(e.get('camel'))} {e.get('value')} ticket"
    )
    return f"{w.who(e['player'])} will copy {what} from their partner"


def _gains(e: Event, w: _Words) -> str:
    return ", ".join(f"{w.who(p)} {g:+d}" for p, g in e["gains"].items())


def _leg_scored(e: Event, w: _Words) -> str:
    if w.ko():
        return f"{e['leg']}레그 정산 (1등 {w.camel(e['ranking'][0])}, 2등 {w.camel(e['ranking'][1])}): {_gains(e, w)}"
    return f"Leg {e['leg']} scored (1st {w.camel(e['ranking'][0])}, 2nd {w.camel(e['ranking'][1])}): {_gains(e, w)}"


def _leg_started(e: Event, w: _Words) -> str:
    if w.ko():
        first = f", {w.who(e['start_player'])}부터" if e.get("start_player") else ""
        return f"{e['leg']}레그 시작{first}"
    first = f", {w.who(e['start_player'])} starts" if e.get("start_player") else ""
    return f"Leg {e['leg']} begins{first}"


def _leg_ended(e: Event, w: _Words) -> str:
    if w.ko():
        return (
            f"{e['leg']}레그 끝 (선두 {w.camel(e['ranking'][0])}, 2등 {w.camel(e['ranking'][1])})"
        )
    return f"Leg {e['leg']} is over (leader {w.camel(e['ranking'][0])}, 2nd {w.camel(e['ranking'][1])})"


def _race_ended(e: Event, w: _Words) -> str:
    if w.ko():
        return f"레이스 종료! 우승 낙타 {w.camel(e['winner_camel'])}, 꼴찌 낙타 {w.camel(e['loser_camel'])}"
    return (
        f"The race is over! Winner {w.camel(e['winner_camel'])}, loser {w.camel(e['loser_camel'])}"
    )


def _pile(e: Event, w: _Words) -> str:
    pile = PILE[w.lang][e["pile"]]
    if not e["cards"]:
        line = f"{pile}: 카드 없음" if w.ko() else f"The {pile} pile is empty"
    else:
        cards = ", ".join(
            f"{w.who(c['player'])} {w.camel(c['camel'])} {c['delta']:+d}" for c in e["cards"]
        )
        line = f"{pile} 공개: {cards}" if w.ko() else f"The {pile} pile: {cards}"
    void = ", ".join(f"{w.who(c['player'])} {w.camel(c['camel'])}" for c in e.get("void", ()))
    if not void:
        return line
    if w.ko():
        return f"{line} (무효: {void}, 휴대폰으로 이미 놓은 낙타라 0)"
    return f"{line} (void: {void}, a camel its phone had already placed, worth 0)"


def _game_over(e: Event, w: _Words) -> str:
    who = ", ".join(w.who(p) for p in e["winners"])
    money = ", ".join(f"{w.who(p)} {m}" for p, m in e["money"].items())
    if w.ko():
        tie = " 공동 우승" if len(e["winners"]) > 1 else " 우승"
        return f"{who}{tie}! 최종 파운드: {money}"
    verb = " share the victory" if len(e["winners"]) > 1 else " wins"
    return f"{who}{verb}! Final money: {money}"


def _paper_waiting(e: Event, w: _Words) -> str:
    n, m = e["winner"], e["loser"]
    if w.ko():
        return (f"휴대폰 없는 자리의 엎어 둔 카드 (우승 {n}장, 꼴찌 {m}장): "
                "호스트가 카드마다 낙타를 입력하면 베팅 칸을 계산합니다")
    return (f"Face-down cards of seats without a phone (winner {n}, loser {m}): "
            "the piles are paid once the host records each card's camel")


def _stack_set(e: Event, w: _Words) -> str:
    camels = w.camels(e["camels"]) or "-"
    if w.ko():
        return f"{w.who(e['player'])}(호스트) 보정: {e['space']}칸 = [{camels}]"
    return f"{w.who(e['player'])} (host) corrected space {e['space']} to [{camels}]"


_LINES: dict[str, Callable[[Event, _Words], str]] = {
    "leg_bet_taken": _leg_bet,
    "tile_placed": _tile,
    "die_rolled": _die,
    "camel_moved": _moved,
    "finish_card_placed": _finish,
    "paper_cards_waiting": _paper_waiting,
    "partnership_formed": _partner,
    "copy_chosen": _copy,
    "leg_scored": _leg_scored,
    "leg_started": _leg_started,
    "leg_ended": _leg_ended,
    "race_ended": _race_ended,
    "pile_revealed": _pile,
    "game_over": _game_over,
    "stack_set": _stack_set,
}


#: The history's lines: a leg's end, its scoring, the next leg's start and the
#: race's end each on a line of their own; a leg starts with ``leg_started``.
BREAKS = frozenset(
    {"leg_ended", "leg_scored", "leg_started", "race_ended", "pile_revealed", "game_over"}
)
OPENERS = {"leg_started": "leg"}


def describe(event: Event, lang: str, names: Mapping[str, str]) -> str:
    if event.get("type") in SEAT_EVENTS:
        return describe_seat_event(event, lang, names)
    line = _LINES.get(str(event.get("type")))
    if line is None:
        return str(event.get("type"))
    return line(event, _Words(event, lang, names))
