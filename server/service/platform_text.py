"""The history text of platform changes (create, join, start, undo, …), in
Korean and English; each engine writes its own game events' text."""

from __future__ import annotations

from server.model import LogEntry

#: action type → (ko, en); ``{by}`` is the acting seat's name.
PLATFORM_TEXT: dict[str, tuple[str, str]] = {
    "create": ("{by}님이 테이블을 만들었습니다.", "{by} created the table."),
    "join": ("{by}님이 참가했습니다.", "{by} joined."),
    "start": ("게임 시작!", "The game started."),
    "seats": ("{by}님이 자리 순서를 바꿨습니다.", "{by} changed the seat order."),
    "rename": ("{old} → {name} 이름 변경", "{old} is now {name}."),
    "remove": ("{by}님이 {name}님을 내보냈습니다.", "{by} removed {name}."),
    "host": ("{player}님이 호스트가 되었습니다.", "{player} is now the host."),
    "rejoin": ("{by}님이 {player}님의 재접속 코드를 만들었습니다.", "{by} issued a rejoin code for {player}."),
    "claim": ("{by}님 자리가 새 휴대폰에서 열렸습니다.", "{by}'s seat opened on a new phone."),
    "undo": ("{by}님이 마지막 행동을 취소했습니다.", "{by} undid the last action."),
    "pin": ("{by}님이 복구 비밀번호를 정했습니다.", "{by} set a recovery PIN."),
    "unlock": ("{by}님이 비밀번호로 자리를 되찾았습니다.", "{by} unlocked their seat with their PIN."),
    "phoneless": ("{by}님이 {player}님 자리를 휴대폰 없는 자리로 바꿨습니다.",
                  "{by} made {player}'s seat one without a phone."),
    "phone_back": ("{by}님이 {player}님 자리를 {player}님의 휴대폰에 돌려줬습니다.",
                   "{by} handed {player}'s seat back to their own phone."),
    "resume": ("{by}님이 자기 휴대폰으로 다시 참여합니다.", "{by} is back on their own phone."),
    "reminder": ("{by}님이 늦는 사람 알림을 바꿨습니다: {seconds}", "{by} set the reminder for a late player: {seconds}."),
    "proxies": ("{by}님이 휴대폰 없는 자리의 입력을 {who} 맡겼습니다.",
                "{by} let {who} enter actions for seats without a phone."),
    "play_again": ("{by}님이 같은 자리로 새 게임을 준비합니다.", "{by} set up a new game with the same seats."),
    # Made by the server from presence (service/hostship.py), never by a phone.
    "stand_in": ("{host}님의 휴대폰이 한동안 연결되지 않아 {player}님이 호스트 역할을 맡습니다. "
                 "{host}님이 돌아오면 돌려받아요.",
                 "{host}'s phone has been away for a while: {player} holds host powers until {host} is back."),
    "host_back": ("{player}님이 돌아와 다시 호스트를 맡습니다.", "{player} is back and is the host again."),
}
#: A seat without a phone, added by the host (``by``).
PHONELESS_JOIN_TEXT = (
    "{by}님이 휴대폰 없는 자리 {name}님을 추가했습니다.",
    "{by} added {name}, a seat without a phone.",
)
#: Added to the undo line when the undone action had drawn something.
KEPT_TEXT = (
    " 뽑힌 결과는 그대로 남아, 다음에 같은 행동을 하면 똑같이 나옵니다.",
    " What it drew stays drawn: the next time that action is taken it reveals the same again.",
)


#: A ``phoneless`` its seat's own phone sent: its player's choice.
SELF_PHONELESS_TEXT = ("{by}님이 휴대폰 없이 하기로 했습니다.", "{by} chose to play without their phone.")
#: An undo that gave a seat its sealed choice back (``undone``'s ``reopened``).
REOPENED_TEXT = (" {seat}님은 자기 휴대폰으로 다시 고릅니다.", " {seat} chooses again on their own phone.")

#: Added to a ``phoneless`` line when the seat's phone kept its token (paused).
PAUSED_TEXT = (
    " {player}님의 휴대폰은 호스트가 돌려줄 때까지 쉬어요.",
    " Their phone waits until the host hands the seat back to it.",
)


def reminder_words(seconds: int, lang: str) -> str:
    """The reminder's setting in words.

    >>> reminder_words(0, "en"), reminder_words(90, "ko"), reminder_words(120, "en")
    ('off', '1분 30초', '2 min')
    """
    if not seconds:
        return "끔" if lang == "ko" else "off"
    m, s = divmod(seconds, 60)
    if lang == "ko":
        return " ".join(x for x in (f"{m}분" if m else "", f"{s}초" if s else "") if x)
    return " ".join(x for x in (f"{m} min" if m else "", f"{s} s" if s else "") if x)


#: Added to a mid-game claim line: the new phone does not see the seat's secrets.
SEALED_TEXT = (
    " {by}님이 비밀번호를 입력할 때까지 이 휴대폰에는 비밀 정보가 보이지 않고 아무것도 할 수 없습니다.",
    " It sees none of {by}'s secrets and can do nothing until {by} enters their PIN.",
)


def describe_platform(entry: LogEntry, lang: str, names: dict[str, str]) -> str:
    """One platform log entry as a line of history.

    >>> entry = {"v": 2, "by": "p1", "round": 0, "kind": "platform", "at": 0.0,
    ...          "action": {"type": "remove", "player": "p2"},
    ...          "events": [{"type": "removed", "player": "p2", "name": "Bo"}]}
    >>> describe_platform(entry, "en", {"p1": "Mina"})
    'Mina removed Bo.'
    >>> describe_platform(entry, "ko", {"p1": "민지"})
    '민지님이 Bo님을 내보냈습니다.'
    """
    action = entry["action"]
    atype: str = action["type"]
    ko, en = PLATFORM_TEXT.get(atype, (atype, atype))
    ev = entry["events"][0] if entry["events"] else {}
    player: str = action.get("player", "")
    fields = {
        "by": names.get(entry["by"] or "", "?"),
        "player": names.get(player, player),
        "name": action.get("name") or ev.get("name", ""),
        "old": ev.get("old", ""),
        "host": names.get(action.get("host", ""), ""),
    }
    if atype == "reminder":
        fields["seconds"] = reminder_words(int(action.get("seconds", 0)), lang)
    if atype == "proxies":
        everyone = action.get("who") == "all"
        fields["who"] = ("모든 참가자에게" if everyone else "호스트에게") if lang == "ko" else (
            "every seated phone" if everyone else "only the host")
    if atype == "join" and action.get("phone") is False:
        # The host added it: ``by`` is the host, ``name`` the new seat.
        ko, en = PHONELESS_JOIN_TEXT
    if atype == "phoneless" and player == entry["by"]:
        ko, en = SELF_PHONELESS_TEXT
    text = (ko if lang == "ko" else en).format(**fields)
    if atype == "undo" and ev.get("kept"):
        text += KEPT_TEXT[0 if lang == "ko" else 1]
    if atype == "undo" and ev.get("reopened"):
        seat = str(ev["reopened"])
        text += REOPENED_TEXT[0 if lang == "ko" else 1].format(seat=names.get(seat, seat))
    if atype == "phoneless" and ev.get("paused"):
        text += PAUSED_TEXT[0 if lang == "ko" else 1].format(**fields)
    if atype == "claim" and ev.get("sealed"):
        text += SEALED_TEXT[0 if lang == "ko" else 1].format(**fields)
    return text
