"""Sheet validation (R6, UP-7, UP-10): every way 5 numbers can be wrong.

``sheet_problems`` lists all problems, so a UI can explain a refusal in words;
``apply`` raises the first one. ``sheet_check`` is what a phone needs to explain
them while the numbers are typed, without knowing the rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

SHEET_SIZE = 5


def _list(numbers: Iterable[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def sheet_problems(numbers: Any, restricted: Iterable[int], top: int) -> list[tuple[str, str]]:
    """(code, message) for each problem of a sheet; empty when it is legal.

    ``top`` is the highest number that may be written (MAX - 1).

    >>> sheet_problems([3, 10, 22, 31, 49], {0, 2, 5, 7}, 49)[0][0]
    'restricted_digit'
    >>> sheet_problems([49, 8, 13, 31, 44], {0, 2, 5, 7}, 49)
    []
    >>> [code for code, _ in sheet_problems([8, 13, 13, 31, 50], {0, 2, 5, 7}, 49)]
    ['out_of_range', 'restricted_digit', 'duplicate']
    """
    if not isinstance(numbers, list | tuple):
        return [("not_five", "Send a list of 5 numbers.")]
    problems: list[tuple[str, str]] = []
    if len(numbers) != SHEET_SIZE:
        problems.append(
            ("not_five", f"Write exactly {SHEET_SIZE} numbers, not {len(numbers)}.")
        )
    # bool is an int subclass; True is not a number anyone wrote.
    bad = [n for n in numbers if type(n) is not int]
    if bad:
        problems.append(("bad_number", f"Numbers must be whole numbers: {bad!r} are not."))
        return problems
    low = [n for n in numbers if not 1 <= n <= top]
    if low:
        problems.append(
            ("out_of_range", f"Numbers run from 1 to {top}; {_list(low)} "
             f"{'is' if len(low) == 1 else 'are'} outside.")
        )
    banned = sorted(set(restricted))
    hit = [n for n in numbers if _restricted(n, banned)]
    if hit:
        problems.append(
            ("restricted_digit", f"No number may end in {_list(banned)} this round; "
             f"{_list(hit)} {'does' if len(hit) == 1 else 'do'}.")
        )
    dups = sorted(n for n, k in Counter(numbers).items() if k > 1)
    if dups:
        problems.append(("duplicate", f"The 5 numbers must differ; {_list(dups)} "
                         f"{'is' if len(dups) == 1 else 'are'} repeated."))
    return problems


def _restricted(n: int, banned: Iterable[int]) -> bool:
    return n % 10 in banned


def sheet_check(restricted: Iterable[int], top: int) -> dict[str, Any]:
    """The sheet's checks as data for a screen: how many numbers, their range and
    every number in range refused this round, with its restricted last digit
    (keys are strings: the view is JSON).

    >>> sheet_check({0, 5}, 12)
    {'size': 5, 'distinct': True, 'range': [1, 12], 'refused': {'5': 5, '10': 0}}
    """
    # Each banned digit's numbers stepped to, not every number tested: built
    # into every Count Up push's shared view (its row in docs/performance.md,
    # "Why each fast path exists").
    refused = sorted(n for d in set(restricted) for n in range(d or 10, top + 1, 10))
    return {
        "size": SHEET_SIZE,
        "distinct": True,
        "range": [1, top],
        "refused": {str(n): n % 10 for n in refused},
    }
