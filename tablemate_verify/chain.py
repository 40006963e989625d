"""Hash chains: each phone's part of every draw (docs/fairness.md, "Chains").

A phone picks a random top ``c_n`` and hashes down, ``c_{k-1} = SHA-256(c_k)``,
to the anchor ``c_0``, which is all it sends at first. It then reveals its
links in order, one per draw it takes part in (``c_1``, ``c_2``, ...). A link
is fixed by the anchor before any draw (nobody can pick it, the phone
included), and unknown until the phone sends it (nobody can foresee it), so an
outcome derived from the server's committed secret and every phone's link is
chosen by no one and known to no one before the last link arrives.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import Any, TypedDict

from tablemate_verify.derive import check_hex32

#: Links a chain may hold: a phone makes a new one when it runs out.
MAX_LENGTH = 4096


class ChainEntry(TypedDict):
    """A seat's chain as the table accepted it: the anchor, how many links it
    has past the anchor, and the table version that accepted it (it counts
    only for draws announced after)."""

    seat: str
    anchor: str
    length: int
    v: int


class LinkEntry(TypedDict):
    """One seat's part in one outcome: the link it revealed, and the anchor of
    the chain the link belongs to."""

    seat: str
    link: str
    anchor: str


def step(link: str) -> str:
    """The link before ``link``: SHA-256 of its 32 bytes, as hex.

    >>> step("00" * 32)
    '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
    """
    return hashlib.sha256(bytes.fromhex(check_hex32(link, "link"))).hexdigest()


def make_chain(length: int, top: str | None = None) -> list[str]:
    """A chain ``[c_0 (the anchor), c_1, ..., c_length]`` from a fresh random
    top (or ``top``, for tests and benchmarks that must repeat)."""
    if not 1 <= length <= MAX_LENGTH:
        raise ValueError(f"a chain has 1-{MAX_LENGTH} links, not {length}")
    links = [secrets.token_hex(32) if top is None else check_hex32(top, "chain top")]
    for _ in range(length):
        links.append(step(links[-1]))
    return links[::-1]


def chain_faults(uses: Iterable[tuple[Any, LinkEntry]], chains: Iterable[ChainEntry]) -> list[tuple[Any, str]]:
    """Every use of a link that does not chain: ``uses`` are (where, link)
    in the order the draws were made (by version, then index). Each seat's
    links must step from its anchor strictly one each (none skipped: a phone
    in league with the server could pick among outcomes), none past its
    length, and none used twice, except at the same ``where`` (an undone draw
    redrawn at its index reuses its links). Returns (where, why) per fault."""
    known = {(c["seat"], c["anchor"]): c for c in chains}
    last: dict[tuple[str, str], tuple[str, int, Any]] = {}
    faults: list[tuple[Any, str]] = []
    for where, use in uses:
        key = (use["seat"], use["anchor"])
        chain = known.get(key)
        if chain is None:
            faults.append((where, f"{use['seat']}'s link is of no chain the proof lists"))
            continue
        prev, k, at = last.get(key, (chain["anchor"], 0, None))
        if use["link"] == prev and k > 0:
            if at != where:
                faults.append((where, f"{use['seat']}'s link {k} is used again"))
            continue
        if step(use["link"]) != prev:
            faults.append((where, f"{use['seat']}'s link is not the next of its chain (link {k + 1})"))
            continue
        if k + 1 > chain["length"]:
            faults.append((where, f"{use['seat']}'s chain has {chain['length']} links, not {k + 1}"))
            continue
        last[key] = (use["link"], k + 1, where)
    return faults
