"""The pyramid is fair (R12, CU-19): 60,000 draws from the real dice source.

``draw`` with ``tablemate_verify.OutcomeRng`` (what the server passes: each
outcome derived from a scope's secret, the phones' seeds and the outcome's
index) on a full pyramid, outcomes 0..59,999 of one fixed secret and two seeds.
Each statistic is a Pearson chi-square test at the fixed significance alpha =
0.001, against hard-coded critical values of the chi-square distribution (upper
0.1 % points: df 2 -> 13.816, df 5 -> 20.515, df 20 -> 45.315). The draws are
fixed, so the file gives the same answer every run (with fresh randomness a fair
pyramid failed it about one run in 250, and a test may not fail by chance); a
mapping from the stream to dice that favoured a die 6 % (10,600 draws in 60,000
instead of 10,000) fails the first test about 98 % of the time (checked by
simulation), whatever the fixed secret.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

import pytest

from engines.camelup import ENGINE
from engines.camelup.constants import DICE, GREY, RACING
from engines.camelup.state import Roll
from tablemate_verify import OutcomeRng

DRAWS = 60_000
CRITICAL_0_001 = {2: 13.816, 5: 20.515, 20: 45.315}
SECRET = "5e" * 32
SEEDS = ["a1" * 32, "0f" * 32]


def chi_square(observed: Mapping[object, int], expected: Mapping[object, float]) -> float:
    return sum((observed.get(k, 0) - e) ** 2 / e for k, e in expected.items())


@pytest.fixture(scope="module")
def rolls() -> list[tuple[str, int, str | None]]:
    players = ["a", "b", "c"]
    state = ENGINE.setup(players, ENGINE.draw_setup(players, {}, random.Random(0)))
    base = {"type": "pyramid", "player": "a", "host": False}
    out = []
    for i in range(DRAWS):
        a = ENGINE.draw(state, base, OutcomeRng.of(SECRET, "leg:1", SEEDS, i))
        out.append((a["die"], a["value"], a.get("color")))
    return out


def test_every_die_is_equally_likely(rolls: list[tuple[str, int, str | None]]) -> None:
    observed = Counter(die for die, _, _ in rolls)
    assert set(observed) == set(DICE)
    stat = chi_square(observed, {d: DRAWS / 6 for d in DICE})
    assert stat < CRITICAL_0_001[5], stat


def test_racing_faces_are_one_third_each(rolls: list[tuple[str, int, str | None]]) -> None:
    faces = Counter(v for die, v, color in rolls if die != GREY and color is None)
    n = sum(faces.values())
    stat = chi_square(faces, {v: n / 3 for v in (1, 2, 3)})
    assert stat < CRITICAL_0_001[2], stat


def test_grey_faces_are_one_sixth_each(rolls: list[tuple[str, int, str | None]]) -> None:
    faces = Counter((color, v) for die, v, color in rolls if die == GREY)
    n = sum(faces.values())
    stat = chi_square(faces, {(c, v): n / 6 for c in ("white", "black") for v in (1, 2, 3)})
    assert stat < CRITICAL_0_001[5], stat


def test_die_and_face_jointly(rolls: list[tuple[str, int, str | None]]) -> None:
    expected: dict[object, float] = {(d, v, None): DRAWS / 18 for d in RACING for v in (1, 2, 3)}
    expected.update({(GREY, v, c): DRAWS / 36 for c in ("white", "black") for v in (1, 2, 3)})
    observed = Counter(rolls)
    assert set(observed) <= set(expected)
    stat = chi_square(observed, expected)
    assert stat < CRITICAL_0_001[20], stat


def test_only_dice_left_in_the_pyramid_are_drawn() -> None:
    # Seeded, so deterministic: after three dice are out, the other three share evenly.
    players = ["a", "b", "c"]
    state = ENGINE.setup(players, ENGINE.draw_setup(players, {}, random.Random(0)))
    out = tuple(Roll(d, 1, None, d) for d in ("blue", "red", "purple"))
    state = replace(state, tents=out)
    rng = random.Random(2024)
    base = {"type": "pyramid", "player": "a", "host": False}
    observed = Counter(ENGINE.draw(state, base, rng)["die"] for _ in range(30_000))
    assert set(observed) == {"green", "yellow", "grey"}
    assert chi_square(observed, {d: 10_000 for d in observed}) < CRITICAL_0_001[2]
