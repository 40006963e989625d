"""A table's history by pages, as lines of a score pad by round: the
engine's lines of each logged change, the platform's own (each record's
``text`` in ``platform_actions``), an action entered for a seat without a
phone marked as such, and a stretch of numbers counted aloud folded into one
line. Every line travels as string keys and plain values
(``engines.history.Part``): the phone words them from ``web/i18n/*.json`` and
the game's ``strings.js`` (``web/history.js``), so the server holds no words
and no grammar. Nothing here writes."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from engines.base import Engine
from engines.history import HistoryText, Part, Value, part
from server.model import History, HistoryLine, LogEntry, TableDoc
from server.service import atrest
from server.service.platform_actions import text_parts

#: History entries per page: the default and the most one request may ask for.
HISTORY_PAGE = 200
HISTORY_PAGE_MAX = 500


@dataclass
class _Line:
    """A line of the page being built; ``count``/``quiet`` as in ``HistoryText``."""

    version: int
    first: int
    by: str | None
    parts: list[Part]
    undone: bool
    round: int
    #: Which game of the table the line belongs to (``rematches``).
    game: int = 1
    count: int | None = None
    quiet: bool = False
    #: The seat without a phone this line's action was entered for (``as``).
    entered_for: str | None = None
    #: The sealed choice an undone action held, once no secret (``retracted``).
    retracted: Value | None = None

    def joins(self, other: _Line) -> bool:
        """Whether ``other`` may be folded into this line (the same caller's
        count, in the same round, both standing or both undone)."""
        return (other.by, other.game, other.round, other.undone) == (self.by, self.game, self.round, self.undone)


def _fold(engine: Engine, lines: list[_Line], names: dict[str, str], whole: bool) -> list[_Line]:
    """Each stretch of quiet numbers counted in a row as one line, with the
    call that ends it ("12–17 counted by Mina; 18: Bo declares and leads").
    A count finished at once logs only its last number: its stretch starts
    after the round's previous call, known when on the page or when the page
    holds the ``whole`` log."""
    out: list[_Line] = []
    last: dict[tuple[int, int], int] = {}  # (game, round) → the last number called on the page
    i = 0
    while i < len(lines):
        run = lines[i]
        if run.count is not None and not run.quiet and not run.undone:
            last[run.game, run.round] = run.count
        if not run.quiet or run.count is None:
            out.append(run)
            i += 1
            continue
        j = i + 1
        while (j < len(lines) and lines[j].quiet and run.joins(lines[j])
               and lines[j].count == (lines[j - 1].count or 0) + 1):
            j += 1
        before = last.get((run.game, run.round), 0 if whole else None)
        lo = run.count if before is None else min(run.count, before + 1)
        hi = lines[j - 1].count or run.count
        tail = lines[j] if j < len(lines) else None
        # A call entered for a seat without a phone keeps a line of its own:
        # its mark ("유나 (Sam 입력): …") is the phone's to place, at the line's start.
        if (tail is not None and tail.count in (hi, hi + 1) and run.joins(tail)
                and tail.entered_for is None and tail.retracted is None):
            j += 1
            hi -= tail.count == hi  # paper sheets: the number called, then its declarations
        else:
            tail = None
        if not run.undone:
            last[run.game, run.round] = max(hi, tail.count or hi) if tail else hi
        who = names.get(run.by or "", run.by or "?")
        parts = ([engine.stretch(lo, hi, who, tail is not None)] if hi >= lo else []) + (tail.parts if tail else [])
        out.append(_Line(lines[j - 1].version, run.first, run.by, parts, run.undone, run.round, run.game))
        i = j
    return out


def retracted(engine: Engine, doc: TableDoc, entry: LogEntry) -> Value | None:
    """The sealed choice (``Engine.sealed_choices``) the undone ``entry`` held,
    as the game words it (``Engine.describe_sealed``: keys and values, like
    every line), once its game is over (no longer a secret of the game: the
    table sees what was undone); None before, or for any other entry.

    >>> from engines.camelup import ENGINE
    >>> bet = {"kind": "game", "v": 3, "events": [],
    ...        "action": {"type": "finish_bet", "pile": "winner", "camel": "blue"}}
    >>> retracted(ENGINE, {"id": "t", "status": "over", "start": {"v": 1}}, bet)
    {'key': 'camelup.colour.blue', 'params': {}}
    >>> retracted(ENGINE, {"id": "t", "status": "playing", "start": {"v": 1}}, bet) is None
    True
    """
    if entry["action"]["type"] not in engine.sealed_choices or entry["kind"] != "game":
        return None
    start = doc["start"]
    if doc["status"] == "playing" and start is not None and entry["v"] >= start.get("v", 0):
        return None
    if "hash" in entry["action"]:
        return None  # sealed on its phone (seals.py): the server never knew the value
    return engine.describe_sealed(atrest.shown(doc["id"], entry["action"], entry["v"]), entry["events"])


def history(engine: Engine, doc: TableDoc, entries: list[LogEntry],
            before: int | None = None, limit: int = HISTORY_PAGE, complete: bool = True) -> History:
    """One page of the log as lines of a score pad, by round: the latest
    ``limit`` entries below version ``before`` (None: all). An action may make
    several lines, each in its own round (the die that ends a leg, the leg's
    scoring, the next leg's start), and a stretch of numbers counted aloud
    makes one. Entries later undone are marked, not dropped. ``entries`` must
    run from at least the page's first entry to the end of the log (an undo
    after the page marks entries in it); ``complete`` says whether they start
    at the log's beginning."""
    names = {s["id"]: s["name"] for s in doc["seats"]}
    undone = {e["action"]["target"] for e in entries if e["action"]["type"] == "undo"}
    # Seats removed since still have a name in the events that name them (a
    # "joined" event names no one: it must not hide the "removed" one).
    for e in entries:
        for ev in e["events"]:
            if ev.get("name"):
                names.setdefault(ev.get("player", ""), ev["name"])
    older = [e for e in entries if before is None or e["v"] < before]
    page = older[-limit:] if limit > 0 else []
    # Short of the whole log, an empty remainder says nothing: the table's
    # first entry (version 1) is the only proof that nothing is older.
    more = len(older) > len(page) or (not complete and bool(page) and page[0]["v"] > 1)
    # Each "play again" begins a game of its own: its rounds start at 1 again.
    rematches = sorted({*doc.get("rematches", ()), *(e["v"] for e in entries if e["action"]["type"] == "play_again")})
    lines: list[_Line] = []
    for e in page:
        game = 1 + bisect.bisect_right(rematches, e["v"])
        if e["kind"] != "game":
            said = text_parts(e, names)
            if said is not None:  # None: a change the history does not tell (a phone's seed)
                lines.append(_Line(e["v"], e["v"], e["by"], [part(k, **p) for k, p in said], e["v"] in undone,
                                   e["round"], game))
            continue
        texts = engine.history_lines(e["events"], names) or [HistoryText([])]
        for i, x in enumerate(texts):
            rnd = e["round"] if x.round is None else x.round
            # An action entered for a seat without a phone is its first line; the
            # lines after it are what the rules did on their own (a leg's
            # scoring, the next leg's start): nobody's, so nobody's mark.
            proxied = e.get("entered_for") if i == 0 else None
            value = retracted(engine, doc, e) if i == 0 and e["v"] in undone else None
            lines.append(_Line(e["v"], e["v"], e["by"], x.parts, e["v"] in undone, rnd, game, x.count, x.quiet,
                               proxied, value))
    rounds: dict[tuple[int, int], list[HistoryLine]] = {}
    # The names the phone needs beside the parts: who entered a line for whom.
    named: dict[str, str] = {}
    for line in _fold(engine, lines, names, whole=bool(page) and page[0]["v"] == 1):
        item: HistoryLine = {
            "version": line.version, "first": line.first, "by": line.by, "parts": line.parts,
            "undone": line.undone,
        }
        if line.entered_for is not None:
            item["entered_for"] = line.entered_for
            for seat in (line.entered_for, line.by or ""):
                named[seat] = names.get(seat, "?")
        if line.retracted is not None:
            item["retracted"] = line.retracted
        rounds.setdefault((line.game, line.round), []).append(item)
    return {
        "version": doc["version"],
        "games": 1 + len(rematches),
        "names": named,
        "rounds": [{"game": g, "round": r, "entries": rounds[g, r]} for g, r in sorted(rounds)],
        "more": more,
        "next_before": page[0]["v"] if more else None,
    }
