"""A hash said aloud: 4 words of the BIP-39 lists (Korean or English), from
the hash's first 44 bits, 11 bits a word. Two phones that show the same 4
words show the same commitment, bar a 1 in 2**44 chance.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

WORDS = 4
BITS = 11
LISTS = {"en": "english.txt", "ko": "korean.txt"}
_HEX = re.compile(r"[0-9a-f]{11,}")


@cache
def word_list(lang: str) -> tuple[str, ...]:
    """The 2,048 words of ``lang`` ("en" or "ko"), in BIP-39 order."""
    if lang not in LISTS:
        raise ValueError(f"no word list for {lang!r} (there are {', '.join(LISTS)})")
    text = resources.files("tablemate_verify").joinpath("words", LISTS[lang]).read_text("utf-8")
    words = tuple(text.split())
    if len(words) != 2**BITS:
        raise RuntimeError(f"the {lang} word list has {len(words)} words, not 2048")
    return words


def word_indices(hash_hex: str) -> list[int]:
    """The 4 list positions of a hash: its first 44 bits, 11 at a time.

    >>> word_indices("ffe00" + "0" * 59)
    [2047, 0, 0, 0]
    """
    if not _HEX.fullmatch(hash_hex):
        raise ValueError(f"a hash is lowercase hex, at least 11 digits, not {hash_hex!r}")
    bits = int(hash_hex[:11], 16)
    return [(bits >> (BITS * (WORDS - 1 - i))) & (2**BITS - 1) for i in range(WORDS)]


def phrase(hash_hex: str, lang: str) -> list[str]:
    """The 4 words of a commitment or seal hash.

    >>> phrase("0" * 64, "en"), phrase("0" * 64, "ko")
    (['abandon', 'abandon', 'abandon', 'abandon'], ['가격', '가격', '가격', '가격'])
    """
    words = word_list(lang)
    return [words[i] for i in word_indices(hash_hex)]
