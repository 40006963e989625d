"""The history as a table's score pad: an action's events cut into lines, each
line in the round (Camel Up: the leg) it belongs to, and a stretch of numbers
counted aloud folded into one line. Engines say which events begin a line and
which open a round; the server (``server/service/history.py``) pages the log and folds.

A line travels as string keys and plain values (``Part``), never as words: the
phone fills them in from its own tables (``web/i18n/*.json``, the game's
``strings.js``) with the one Korean particle implementation, ``web/i18n.js``.
Pure: no I/O."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, TypedDict

#: An engine event (``engines.base.Event``, which imports this module).
Event = dict[str, Any]


class Part(TypedDict):
    """A string of the web's tables and its values. A value is a string or a
    number, a part itself (said in the same language), a list (its items
    joined by ``history.sep``) or ``{"and": [...]}`` (joined as "A, B and C" /
    "A·B·C": ``history.and_*``); ``web/history.js`` words them."""

    key: str
    params: dict[str, Any]


#: A value as ``Part`` describes them (``web/history.js``: ``value``): a
#: part's params hold them, and so does a line's ``retracted``
#: (``Engine.describe_sealed``).
Value: TypeAlias = "str | int | Part | Sequence[Value] | Mapping[str, Sequence[Value]]"


def part(key: str, **params: Any) -> Part:
    """A part of a line (``Part``).

    >>> part("history.start")
    {'key': 'history.start', 'params': {}}
    """
    return {"key": key, "params": params}

@dataclass(frozen=True)
class HistoryText:
    """One line an action's events make."""

    parts: list[Part]
    #: The round the line belongs to; None: the round the action left the table in.
    round: int | None = None
    #: A called number (Count Up): the line folds with its neighbours when
    #: ``quiet`` (nothing happened on it but the counting).
    count: int | None = None
    quiet: bool = False


def cut(events: list[Event], breaks: frozenset[str],
        openers: Mapping[str, str]) -> list[tuple[int | None, list[Event]]]:
    """``events`` cut before each event whose type is in ``breaks``, each piece
    with its round: an event of a type in ``openers`` opens the round named by
    its field, so the pieces before it belong to the round before (the die that
    ends a leg, the leg's scoring) and the pieces from it on to the new one.

    >>> roll = [{"type": "die_rolled"}, {"type": "camel_moved"},
    ...         {"type": "leg_scored", "leg": 1}, {"type": "leg_started", "leg": 2}]
    >>> [(r, [e["type"] for e in p]) for r, p in cut(roll, frozenset({"leg_scored",
    ...     "leg_started"}), {"leg_started": "leg"})]
    [(1, ['die_rolled', 'camel_moved']), (1, ['leg_scored']), (2, ['leg_started'])]
    """
    pieces: list[list[Event]] = []
    for ev in events:
        if not pieces or ev.get("type") in breaks:
            pieces.append([])
        pieces[-1].append(ev)
    opened = [
        int(ev[openers[str(ev.get("type"))]]) if str(ev.get("type")) in openers else None
        for ev in (p[0] for p in pieces)
    ]
    out: list[tuple[int | None, list[Event]]] = []
    for i, piece in enumerate(pieces):
        later = next((r for r in opened[i:] if r is not None), None)
        earlier = next((r for r in reversed(opened[: i + 1]) if r is not None), None)
        if opened[i] is not None or earlier is not None:
            out.append((earlier, piece))
        else:
            out.append((later - 1 if later is not None else None, piece))
    return out


def lines(events: list[Event], breaks: frozenset[str], openers: Mapping[str, str],
          describe: Callable[[Event], list[Part]]) -> list[HistoryText]:
    """Each piece of ``cut`` as a line: its events' parts, one after another."""
    return [
        HistoryText([p for ev in piece for p in describe(ev)], rnd)
        for rnd, piece in cut(events, breaks, openers)
    ]
