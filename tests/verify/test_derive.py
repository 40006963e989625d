"""The derivation: uniform draws (no modulo bias), the rejection path taken as
often as it should be, outcomes fixed by their index, and the scope records
the server keeps (seeds frozen per index, one seed per seat)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from tablemate_verify import FairError, add_seed, keep, open_scope, rng_for
from tablemate_verify.derive import OutcomeRng, Stream, span

SECRET = "5e" * 32
SEEDS = ["a1" * 32, "b2" * 32]
# Chi-square critical values at p = 0.001: the draws are fixed (a fixed secret),
# so a pass is a pass for good, and a real bias of a few percent fails.
CHI2_001 = {2: 13.82, 5: 20.52, 6: 22.46}


def chi2(counts: Counter[int], bins: int, total: int) -> float:
    expected = total / bins
    return sum((counts[b] - expected) ** 2 / expected for b in range(bins))


def draws(n: int, count: int, label: str = "t/stats/leg/1") -> tuple[Counter[int], int]:
    """``count`` draws of ``below(n)``, eight outcomes' worth per stream; and
    how many words they read."""
    counts: Counter[int] = Counter()
    words = 0
    for index in range(count // 8):
        stream = Stream(SECRET, label, SEEDS, index)
        for _ in range(8):
            counts[stream.below(n)] += 1
        words += stream.used
    return counts, words


@pytest.mark.parametrize("n", [6, 7])
def test_below_is_uniform(n: int) -> None:
    total = 48_000
    counts, _ = draws(n, total)
    assert set(counts) == set(range(n))
    assert chi2(counts, n, total) < CHI2_001[n - 1]


def test_the_rejection_path_keeps_a_huge_range_uniform() -> None:
    # n = 3 * 2**30: a quarter of all words are rejected. Plain `word % n` would
    # make the lowest third twice as likely as the others.
    n = 3 * 2**30
    total = 24_000
    counts, words = draws(n, total)
    thirds = Counter({b: sum(c for v, c in counts.items() if v // 2**30 == b) for b in range(3)})
    assert chi2(thirds, 3, total) < CHI2_001[2]
    rejected = (words - total) / words
    assert 0.23 < rejected < 0.27, rejected


def test_no_word_is_rejected_for_a_power_of_two() -> None:
    _, words = draws(2**20, 800)
    assert words == 800


def test_shuffles_and_deals_are_uniform() -> None:
    perms: Counter[tuple[int, ...]] = Counter()
    dealt: Counter[tuple[int, ...]] = Counter()
    total = 12_000
    for index in range(total):
        rng = OutcomeRng.of(SECRET, "t/stats/deal", SEEDS, index)
        x = [0, 1, 2]
        rng.shuffle(x)
        perms[tuple(x)] += 1
        dealt[tuple(rng.sample(range(4), 2))] += 1
    assert set(perms) == set(itertools.permutations(range(3)))
    keys = list(perms)
    assert chi2(Counter({i: perms[k] for i, k in enumerate(keys)}), 6, total) < CHI2_001[5]
    assert set(dealt) == set(itertools.permutations(range(4), 2))  # ordered: 12 pairs
    expected = total / 12
    assert all(abs(c - expected) < 5 * expected**0.5 for c in dealt.values())


@pytest.mark.parametrize("args", [(6,), (1, 7), (0, 10, 3), (10, 0, -3), (-5, 5, 2), (7, 8), (3, -9, -4)])
def test_randrange_covers_exactly_what_random_does(args: tuple[int, ...]) -> None:
    want = set(range(*args))
    start, stop, step = (*args, None, 1)[:3] if len(args) == 1 else (*args, 1)[:3]
    assert span(start, stop, step)[2] == len(want)
    got = {OutcomeRng.of(SECRET, "t/stats/range", [], i).randrange(*args) for i in range(400)}
    assert got == want


@pytest.mark.parametrize("call", [
    lambda r: r.randrange(0), lambda r: r.randrange(5, 5), lambda r: r.randrange(0, 5, 0),
    lambda r: r.sample([1, 2], 3), lambda r: r.stream.below(0), lambda r: r.stream.below(2**32 + 1),
])
def test_impossible_draws_are_refused(call) -> None:
    with pytest.raises(ValueError):
        call(OutcomeRng.of(SECRET, "t/x", [], 0))


def test_an_empty_choice_is_an_index_error_as_in_random() -> None:
    with pytest.raises(IndexError):
        OutcomeRng.of(SECRET, "t/x", [], 0).choice([])


@pytest.mark.parametrize("secret, label, seeds, index", [
    ("5E" * 32, "t/x", [], 0), ("5e" * 31, "t/x", [], 0), (SECRET, "t x", [], 0), (SECRET, "", [], 0),
    (SECRET, "t/x", ["zz" * 32], 0), (SECRET, "t/x", [], -1), (SECRET, "t/x", [], True),
])
def test_bad_inputs_are_refused(secret: str, label: str, seeds: list[str], index: int) -> None:
    with pytest.raises(ValueError):
        Stream(secret, label, seeds, index)


def test_an_outcome_depends_on_its_index_not_on_draws_before_it() -> None:
    scope = open_scope("t/x/leg/1")
    add_seed(scope, "p1", SEEDS[0])
    first = rng_for(scope, 3)
    first.choice(["a", "b", "c", "d", "e"])
    first.randrange(6)
    # Other outcomes drawn in between (and a seed arriving after index 3 was
    # drawn) change nothing for index 3: an undone roll redone gives the same.
    for i in range(3):
        keep(scope, rng_for(scope, i))
    keep(scope, first)
    add_seed(scope, "p2", SEEDS[1])
    again = rng_for(scope, 3)
    again.choice(["a", "b", "c", "d", "e"])
    again.randrange(6)
    assert again.draws == first.draws
    assert again.stream.seeds == [SEEDS[0]]
    keep(scope, again)
    assert [o["index"] for o in scope["outcomes"]] == [0, 1, 2, 3], "the same outcome is kept once"
    # A new index takes every seed given so far.
    assert rng_for(scope, 4).stream.seeds == SEEDS


def test_seeds_are_refused_when_malformed_repeated_or_late() -> None:
    scope = open_scope("t/x/leg/1")
    with pytest.raises(FairError) as e:
        add_seed(scope, "p1", "not hex")
    assert e.value.code == "bad_seed"
    add_seed(scope, "p1", SEEDS[0], v=4)
    with pytest.raises(FairError) as e:
        add_seed(scope, "p1", SEEDS[1])
    assert e.value.code == "seed_already_given"
    scope["revealed"] = True
    for step in (lambda: add_seed(scope, "p2", SEEDS[1]), lambda: rng_for(scope, 0)):
        with pytest.raises(FairError) as e:
            step()
        assert e.value.code == "scope_closed"
    assert scope["seeds"] == [{"seat": "p1", "seed": SEEDS[0], "v": 4}]


def test_scopes_have_fresh_secrets() -> None:
    a, b = open_scope("t/x/leg/1"), open_scope("t/x/leg/1")
    assert a["secret"] != b["secret"] and a["commitment"] != b["commitment"]


def test_keep_links_each_field_to_the_draw_that_gave_it() -> None:
    scope = open_scope("t/x/leg/1")
    rng = rng_for(scope, 0)
    die = rng.choice(["blue", "white"])
    value = rng.choice([1, 1, 2, 2, 3, 3])
    grey = rng.choice([("white", 1), ("black", 3)])
    rng.draws[2]["field"] = ["color", "n"]  # a caller's own link is kept
    record = keep(scope, rng, {"die": die, "value": value, "color": grey[0], "n": grey[1], "other": "x"})
    assert [d.get("field") for d in record["draws"]] == ["die", "value", ["color", "n"]]
    # The same outcome redone is kept once, whatever links the second call makes.
    again = rng_for(scope, 0)
    again.choice(["blue", "white"]), again.choice([1, 1, 2, 2, 3, 3]), again.choice([("white", 1), ("black", 3)])
    assert keep(scope, again) is record and len(scope["outcomes"]) == 1
