"""Commit, combine, derive: every random outcome of a scope from its secret,
the players' seeds and the outcome's index.

A *scope* is one span of play with one secret (a Camel Up leg, a King Up
game's dealt goal cards, a Count Up round's drawn cards). Before any outcome,
the server publishes ``commitment(secret)``; phones then add seeds of their
own. Outcome ``index`` of a scope reads the stream of 32-bit words

    block b = HMAC-SHA256(key=secret,
                          msg=canonical JSON ["tablemate-outcome/1", label, seeds, index, b])

(b = 0, 1, 2...; each block is eight big-endian words). Its draws consume the
words in order; ``below(n)`` rejects words at or above the largest multiple
of ``n`` under 2**32, so every value is exactly as likely (no modulo bias).

The outcome depends on its index, never on how many draws came before it:
an undone roll redone at the same index, with the same seeds, is the same.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterator, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tablemate_verify import canon

T = TypeVar("T")
#: The tag that starts every derivation message (a new scheme gets a new tag).
OUTCOME_TAG = "tablemate-outcome/1"
#: The tag of an outcome the phones' hash-chain links went into (``chain.py``):
#: ``[TAG, label, [[seat, link], ...sorted by seat], index, block]``.
OUTCOME_TAG_2 = "tablemate-outcome/2"
WORDS_PER_BLOCK = 8
SPAN = 2**32
#: A secret, a seed and a salt: 32 bytes as 64 lowercase hex digits.
HEX32 = re.compile(r"[0-9a-f]{64}")
#: A scope's label: printable ASCII without spaces or quotes, so its JSON is
#: the same bytes in every language (e.g. "t/Ab3x/leg/2").
LABEL = re.compile(r"[A-Za-z0-9/_.:-]{1,120}")
#: A draw as recorded in a proof: which primitive, its public inputs, its result.
Draw = dict[str, Any]


def new_secret() -> str:
    """A fresh 32-byte secret (or seed, or salt), as hex, from the OS CSPRNG."""
    return secrets.token_hex(32)


def commitment(secret: str) -> str:
    """The SHA-256 hex published before a scope's first outcome.

    >>> commitment("00" * 32)
    '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
    """
    return hashlib.sha256(bytes.fromhex(check_hex32(secret, "secret"))).hexdigest()


def check_hex32(value: Any, what: str) -> str:
    if not isinstance(value, str) or not HEX32.fullmatch(value):
        raise ValueError(f"a {what} is 64 lowercase hex digits, not {value!r}")
    return value


def check_label(value: Any) -> str:
    if not isinstance(value, str) or not LABEL.fullmatch(value):
        raise ValueError(f"a scope label is 1-120 of A-Z a-z 0-9 / _ . : -, not {value!r}")
    return value


def message(label: str, seeds: Sequence[str], index: int, block: int) -> bytes:
    """The bytes HMAC'd for one block.

    >>> message("t/x/leg/1", ["ab" * 32], 3, 0).replace(b"ab" * 32, b"<seed>")
    b'["tablemate-outcome/1","t/x/leg/1",["<seed>"],3,0]'
    """
    return canon.encode([OUTCOME_TAG, label, list(seeds), index, block])


def _message(label: str, seeds: Sequence[str], index: int, block: int) -> bytes:
    """``message`` of a label and seeds already checked (``Stream`` checks
    them), written without canon's general checks: ``LABEL`` and ``HEX32``
    allow no character JSON escapes, so the text is the same.

    >>> _message("t/x/leg/1", ["ab" * 32, "cd" * 32], 3, 7) == message("t/x/leg/1", ["ab" * 32, "cd" * 32], 3, 7)
    True
    """
    quoted = ",".join(f'"{s}"' for s in seeds)
    return f'["{OUTCOME_TAG}","{label}",[{quoted}],{index},{block}]'.encode()


def message2(label: str, links: Sequence[tuple[str, str]], index: int, block: int) -> bytes:
    """The bytes HMAC'd for one block of an outcome the phones' links went into.

    >>> message2("t/x/leg/1", [("p2", "cd" * 32), ("p1", "ab" * 32)], 3, 0).replace(b"ab" * 32, b"<1>")[:60]
    b'["tablemate-outcome/2","t/x/leg/1",[["p1","<1>"],["p2","cdcd'
    """
    return canon.encode([OUTCOME_TAG_2, label, mix(links), index, block])


def mix(links: Sequence[tuple[str, str]]) -> list[list[str]]:
    """``[[seat, link], ...]`` sorted by seat, each link checked; one link per seat."""
    pairs = sorted([str(seat), check_hex32(link, "link")] for seat, link in links)
    if len({p[0] for p in pairs}) != len(pairs):
        raise ValueError("an outcome takes one link per seat")
    return pairs


class Stream:
    """The words of outcome ``index`` of a scope, read in order: from the
    phones' seeds (``tablemate-outcome/1``), or, when ``links`` is given, from
    the phones' hash-chain links (``tablemate-outcome/2``)."""

    def __init__(self, secret: str, label: str, seeds: Sequence[str], index: int,
                 links: Sequence[tuple[str, str]] | None = None) -> None:
        self._key = bytes.fromhex(check_hex32(secret, "secret"))
        self.label = check_label(label)
        self.seeds = [check_hex32(s, "seed") for s in seeds]
        #: ``[[seat, link], ...]`` by seat, or None: an outcome of seeds.
        self.links = None if links is None else mix(links)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= canon.MAX_SAFE:
            raise ValueError(f"an outcome index is a whole number from 0, not {index!r}")
        self.index = index
        self._words = self._generate()
        #: Words read so far (the rejection tests look at it).
        self.used = 0

    def _generate(self) -> Iterator[int]:
        # message() of every block, written once: only the block number changes.
        if self.links is not None:
            head = message2(self.label, [(a, b) for a, b in self.links], self.index, 0)[:-2]
        else:
            head = _message(self.label, self.seeds, self.index, 0)[:-2]
        block = 0
        while True:
            mac = hmac.digest(self._key, b"%s%d]" % (head, block), "sha256")
            for i in range(0, 32, 4):
                yield int.from_bytes(mac[i:i + 4], "big")
            block += 1

    def word(self) -> int:
        self.used += 1
        return next(self._words)

    def below(self, n: int) -> int:
        """A uniform whole number in ``[0, n)``, ``1 <= n <= 2**32``."""
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= SPAN:
            raise ValueError(f"below(n) needs 1 <= n <= 2**32, not {n!r}")
        limit = SPAN - SPAN % n
        while True:
            w = self.word()
            if w < limit:
                return w % n


def span(start: int, stop: int | None, step: int) -> tuple[int, int, int]:
    """``randrange``'s arguments as (start, stop, count), as ``random`` reads them."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("randrange's step must not be 0")
    count = (stop - start + step - (1 if step > 0 else -1)) // step
    if count <= 0:
        raise ValueError(f"randrange({start}, {stop}, {step}) is an empty range")
    return start, stop, count


def deal(stream: Stream, items: Sequence[T], k: int) -> list[T]:
    """The first ``k`` of ``items`` after a partial Fisher-Yates: position
    ``i`` (from 0) takes the item at ``i + below(len - i)``."""
    pool = list(items)
    if not 0 <= k <= len(pool):
        raise ValueError(f"cannot deal {k} of {len(pool)} items")
    for i in range(k):
        j = i + stream.below(len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def shuffled(stream: Stream, items: Sequence[T]) -> list[T]:
    """Fisher-Yates from the end: position ``i`` (last to 1) swaps with ``below(i + 1)``."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


@dataclass
class OutcomeRng:
    """One outcome's draws, with what ``engines.base.Rng`` offers: the server
    passes it where it passed ``secrets.SystemRandom()``. Every call is
    recorded in ``draws`` (public inputs and result, as plain JSON): that list
    is what the proof publishes and the verifier replays."""

    stream: Stream
    draws: list[Draw] = field(default_factory=list)

    @classmethod
    def of(cls, secret: str, label: str, seeds: Sequence[str], index: int,
           links: Sequence[tuple[str, str]] | None = None) -> OutcomeRng:
        return cls(Stream(secret, label, seeds, index, links))

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        lo, hi, count = span(start, stop, step)
        out = lo + step * self.stream.below(count)
        self.draws.append({"op": "range", "start": lo, "stop": hi, "step": step, "result": out})
        return out

    def face(self, sides: int) -> int:
        """A die's face, 1..``sides``."""
        return self.randrange(1, sides + 1)

    def choice(self, seq: Sequence[T]) -> T:
        if not seq:
            raise IndexError("cannot choose from an empty sequence")
        items = canon.plain(list(seq))
        out = seq[self.stream.below(len(seq))]
        self.draws.append({"op": "choice", "items": items, "result": canon.plain(out)})
        return out

    def shuffle(self, x: MutableSequence[Any]) -> None:
        items = canon.plain(list(x))
        x[:] = shuffled(self.stream, list(x))
        self.draws.append({"op": "shuffle", "items": items, "result": canon.plain(list(x))})

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        items = canon.plain(list(population))
        out = deal(self.stream, population, k)
        self.draws.append({"op": "sample", "items": items, "k": k, "result": canon.plain(out)})
        return out


def replay(stream: Stream, draw: Draw) -> Any:
    """What ``draw`` must have given, from its public inputs and ``stream``
    (the draws of one outcome, replayed in order on one stream).
    Raises ``ValueError`` for a draw that is not well formed."""
    op = draw.get("op")
    if op == "range":
        start, stop, step = (_whole(draw, k) for k in ("start", "stop", "step"))
        lo, _, count = span(start, stop, step)
        return lo + step * stream.below(count)
    items = draw.get("items")
    if not isinstance(items, list):
        raise ValueError(f"a {op!r} draw lists its items")
    if op == "choice":
        if not items:
            raise ValueError("a choice from no items")
        return items[stream.below(len(items))]
    if op == "shuffle":
        return shuffled(stream, items)
    if op == "sample":
        return deal(stream, items, _whole(draw, "k"))
    raise ValueError(f"unknown draw op {op!r}")


def _whole(draw: Draw, key: str) -> int:
    v = draw.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"a {draw.get('op')!r} draw's {key!r} is a whole number, not {v!r}")
    return v
