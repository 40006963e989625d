"""What makes a seat name acceptable, and when two names are "the same".

A name is read aloud and shown beside scores, so it must be visible and
unambiguous at the table:

* it needs at least one visible character: invisible, filler and blank
  characters (U+200D, Hangul fillers U+3164 / U+115F, Braille blank U+2800,
  ...) don't count, so a name made only of them is refused;
* two seats of one table may not share a name after NFKC and case folding,
  nor look alike across scripts (Cyrillic ``А`` for Latin ``A``). Look-alikes
  are judged by a skeleton in the spirit of Unicode TR39: every character with
  a Latin homoglyph is replaced by it, using the confusables data of the
  ``confusable_homoglyphs`` package (Unicode's own tables, kept up to date
  there, rather than a list of our own).

>>> visible("\\u3164\\u115f\\u2800\\u200d")
False
>>> visible("민준")
True
>>> same_name("Anna", "\\u0410nna") and same_name("Anna", "ANNA")
True
>>> same_name("민준", "민지")
False
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) plus blanks that
# render as nothing: fillers are letters (Lo) to Python, yet show no glyph.
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)


def _invisible(c: str) -> bool:
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in _INVISIBLE_RANGES)


def visible(name: str) -> bool:
    """True when some character of ``name`` shows a glyph."""
    for c in name:
        cat = unicodedata.category(c)
        if cat[0] in "LNPS" and not _invisible(c):
            return True
    return False


@lru_cache(maxsize=4096)
def _latin(c: str) -> str:
    found = confusables.is_confusable(c, greedy=True, preferred_aliases=["latin"])
    if not found:
        return c
    glyphs = found[0]["homoglyphs"]
    return glyphs[0]["c"] if glyphs else c


def _skeleton(text: str) -> str:
    return "".join(_latin(c) for c in text)


def name_keys(name: str) -> frozenset[str]:
    """Names whose key sets meet are taken for the same name at a table.

    Case folding and the skeleton don't commute ("I" looks like "l" but folds
    to "i"), so a name has a key for each order; one shared key is enough."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if not _invisible(c) and not c.isspace())
    folded = text.casefold()
    return frozenset({folded, _skeleton(folded), _skeleton(text).casefold()})


def same_name(a: str, b: str) -> bool:
    return bool(name_keys(a) & name_keys(b))
