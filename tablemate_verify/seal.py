"""Sealed values: a Count Up sheet when it is locked, a King Up vote when it
is cast. The server publishes ``seal_hash`` at once and the salt and the
value at the reveal; anyone can then check that the value was not changed.

    hash = SHA-256(canonical JSON ["tablemate-seal/1", label, salt, value])

The label names what is sealed (e.g. "t/Ab3x/round/2/sheet/p3"), so a seal
cannot be passed off as another seat's. The 32-byte salt keeps a value from
a small set (a yes/no vote) from being guessed from its hash.
"""

from __future__ import annotations

import hashlib
from typing import Any

from tablemate_verify import canon
from tablemate_verify.derive import check_hex32, check_label

SEAL_TAG = "tablemate-seal/1"


def seal_hash(label: str, salt: str, value: Any) -> str:
    """The published hash of ``value`` sealed under ``label`` with ``salt``.

    >>> seal_hash("t/x/vote/p1", "11" * 32, "yes")[:16]
    '661344eda3f47750'
    """
    body = canon.encode([SEAL_TAG, check_label(label), check_hex32(salt, "salt"), value])
    return hashlib.sha256(body).hexdigest()


def check_seal(label: str, hash_: str, salt: str, value: Any) -> bool:
    """Whether ``value`` with ``salt`` is what ``hash_`` sealed under ``label``."""
    try:
        return seal_hash(label, salt, value) == hash_
    except ValueError:
        return False
