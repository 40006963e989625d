"""Korean particles chosen by the sound of the word before them: the server's
port of ``web/i18n.js: particle`` (the two must agree; tests/engines/
test_korean.py runs the web helper's cases), and the one spelling of 님.

A particle pair is written "after a consonant/after a vowel": 은/는, 이/가,
을/를, 과/와, 으로/로, 이에요/예요, 아/야. Hangul is read by its final consonant,
numbers as Koreans say them (칠, 오, 십, 천), Latin letters by their Korean names
(지, 엘, 엠) and Latin words roughly as they sound (샘, 빌, 케이트).

>>> josa("민준", "이/가"), josa("유나", "이/가"), josa(7, "은/는"), josa("G", "이/가")
('민준이', '유나가', '7은', 'G가')
>>> nim("Sam", "이/가"), nim("민준")
('Sam님이', '민준님')
"""

from __future__ import annotations

import re

#: A sound: 0 no final consonant, 1 a final consonant, 2 the final ㄹ (which
#: 으로/로 treats like a vowel); None when nothing in the word can be read.
Sound = int | None

# digit → its Sino-Korean reading: 영 일 이 삼 사 오 육 칠 팔 구.
_DIGIT = {"0": 1, "1": 2, "2": 0, "3": 1, "4": 0, "5": 0, "6": 1, "7": 2, "8": 2, "9": 0}
# letter → its Korean name: 에이 비 씨 … 엘 엠 엔 … 알 ….
_LETTER = {c: 0 for c in "abcdefghijklmnopqrstuvwxyz"} | {"l": 2, "m": 1, "n": 1, "r": 2}
# The last readable run: digits, Latin letters or one Hangul syllable, then
# only what is not read aloud (brackets, quotes, spaces, punctuation).
_TAIL = re.compile(r"([0-9]+|[A-Za-z]+|[\uAC00-\uD7A3])[^0-9A-Za-z\uAC00-\uD7A3]*$")
_GROUPING = re.compile(r"(\d)[,.](?=\d{3}\b)")


def final_sound(word: str) -> Sound:
    """How the end of ``word`` sounds in Korean.

    >>> [final_sound(w) for w in ("서울", "부산", "하나", "10", "1,000", "Bill", "🙂")]
    [2, 1, 0, 1, 1, 2, None]
    """
    m = _TAIL.search(_GROUPING.sub(r"\1", word))
    if m is None:
        return None
    tail = m.group(1)
    code = ord(tail[-1])
    if 0xAC00 <= code <= 0xD7A3:
        jong = (code - 0xAC00) % 28
        return 0 if jong == 0 else 2 if jong == 8 else 1
    if tail.isdigit():
        # The reading ends on the last non-zero digit, or on the power of ten
        # of the trailing zeros: 십(ㅂ) 백(ㄱ) 천(ㄴ) 만(ㄴ), 억(ㄱ) 조(none).
        zeros = len(tail) - len(tail.rstrip("0"))
        if zeros == len(tail):
            return 1  # 영
        if zeros == 0:
            return _DIGIT[tail[-1]]
        return 0 if zeros >= 12 else 1
    w = tail.lower()
    # A single letter or an acronym is spelled out: its last letter's name.
    if len(w) == 1 or (len(w) <= 3 and tail == tail.upper()):
        return _LETTER[w[-1]]
    # A word as English sounds: Sam 샘, Bill 빌, Jack 잭, Kate 케이트, Max 맥스.
    if w.endswith("l"):
        return 2
    if re.search(r"(m|n|ng)$", w):
        return 1
    # A voiceless stop after one short vowel closes the syllable (Pat 팻, Nick
    # 닉); b, d, g and long vowels get a vowel of their own (Ted 테드, Pete 피트).
    if re.search(r"[^aeiou][aeiou](ck|k|p|t)$", w) or re.fullmatch(r"[aeiou](ck|k|p|t)", w):
        return 1
    return 0


def particle(word: str | int, pair: str) -> str:
    """The particle of ``pair`` that follows ``word``; both forms ("이(가)")
    when nothing in ``word`` can be read.

    >>> particle("서울", "으로/로"), particle("3층", "으로/로"), particle("🙂", "이/가")
    ('로', '으로', '이(가)')
    """
    with_final, _, without_final = pair.partition("/")
    if not without_final:
        return pair
    sound = final_sound(f"{word:,}" if isinstance(word, int) else word)
    if sound is None:
        return f"{with_final}({without_final})"
    if sound == 2 and with_final == "으로":
        return without_final
    return without_final if sound == 0 else with_final


def josa(word: str | int, pair: str) -> str:
    """``word`` followed by its particle.

    >>> josa("Kate", "은/는"), josa(1500, "을/를")
    ('Kate는', '1500을')
    """
    return f"{word}{particle(word, pair)}"


def nim(name: object, pair: str = "") -> str:
    """A player's name with the polite 님, written without a space (as the web
    writes it), and the particle after 님 (which ends in ㅁ) if ``pair`` is given.

    >>> nim("보라", "은/는"), nim("Bo", "으로/로")
    ('보라님은', 'Bo님으로')
    """
    return f"{name}님" + (particle("님", pair) if pair else "")
