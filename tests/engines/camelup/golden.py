"""Issue 6's golden odds positions and their exact counts, shared by the odds
tests, the Camel Up e2e test and bench/odds.py.

A track is {space: [camels bottom -> top]}; a count is colour: (1st, 2nd, last)
out of the 5,598,720 ways a full leg can go.
"""

from __future__ import annotations

TRACK_A: dict[int, list[str]] = {
    1: ["blue", "green"], 2: ["red", "yellow"], 3: ["purple"], 14: ["black"], 15: ["white"],
}
TRACK_B: dict[int, list[str]] = {
    2: ["red", "blue"], 3: ["green"], 5: ["black", "yellow"], 6: ["purple"], 7: ["white"],
}
COUNTS_A: dict[str, tuple[int, int, int]] = {
    "green": (1_584_896, 1_035_744, 415_872),
    "yellow": (1_715_648, 1_369_472, 262_464),
    "red": (606_912, 1_086_560, 1_626_688),
    "blue": (482_592, 776_864, 2_262_880),
    "purple": (1_208_672, 1_330_080, 1_030_816),
}
COUNTS_B: dict[str, tuple[int, int, int]] = {
    "green": (661_856, 907_760, 1_758_752),
    "yellow": (1_171_360, 1_616_288, 698_176),
    "red": (165_856, 537_104, 2_434_496),
    "blue": (761_568, 1_070_784, 569_776),
    "purple": (2_838_080, 1_466_784, 137_520),
}
