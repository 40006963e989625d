"""A table's history by pages, as lines of a score pad by round: the
engine's lines of each logged change, the platform's own (each record's
``text`` in ``platform_actions``, its strings in ``web/i18n/*.json``),
an action entered for a seat without a phone marked as such, and a stretch
of numbers counted aloud folded into one line. Nothing here writes."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from engines.base import Engine
from engines.history import HistoryText
from server.model import Action, History, HistoryLine, LogEntry, TableDoc
from server.service import atrest
from server.service.platform_actions import Part, text_parts
from server.service.texts import render, say

#: History entries per page: the default and the most one request may ask for.
HISTORY_PAGE = 200
HISTORY_PAGE_MAX = 500


@dataclass
class _Line:
    """A line of the page being built; ``count``/``quiet`` as in ``HistoryText``."""

    version: int
    first: int
    by: str | None
    text: str
    undone: bool
    round: int
    #: Which game of the table the line belongs to (``rematches``).
    game: int = 1
    count: int | None = None
    quiet: bool = False
    #: The seat without a phone this line's action was entered for (``as``).
    entered_for: str | None = None
    #: A platform line's string keys and values (``platform_actions.text_parts``).
    parts: list[Part] | None = None

    def joins(self, other: _Line) -> bool:
        """Whether ``other`` may be folded into this line (the same caller's
        count, in the same round, both standing or both undone)."""
        return (other.by, other.game, other.round, other.undone) == (self.by, self.game, self.round, self.undone)


def _fold(engine: Engine, lines: list[_Line], lang: str, names: dict[str, str],
          whole: bool) -> list[_Line]:
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
        if tail is not None and tail.count in (hi, hi + 1) and run.joins(tail):
            j += 1
            hi -= tail.count == hi  # paper sheets: the number called, then its declarations
        else:
            tail = None
        if not run.undone:
            last[run.game, run.round] = max(hi, tail.count or hi) if tail else hi
        who = names.get(run.by or "", run.by or "?")
        parts = ([engine.stretch(lo, hi, who, lang)] if hi >= lo else []) + ([tail.text] if tail else [])
        out.append(_Line(lines[j - 1].version, run.first, run.by, "; ".join(parts), run.undone, run.round,
                         run.game))
        i = j
    return out


def entered_by(text: str, lang: str, seat: str, by: str) -> str:
    """``text`` marked as entered by ``by`` for ``seat`` (``history.entered_by``):
    after the seat's name when the line starts with it, else before the line.

    >>> entered_by("민준: 빨강 레그 베팅 티켓 (5) 가져감", "ko", "민준", "유나")
    '민준 (유나 입력): 빨강 레그 베팅 티켓 (5) 가져감'
    >>> entered_by("Red won.", "en", "Minjun", "Yuna")
    'Minjun (entered by Yuna): Red won.'
    """
    mark = say(lang, "history.entered_by", {"seat": seat, "by": by})
    if text.startswith(seat):
        return mark + text[len(seat):]
    return f"{mark}: {text}"


def game_heading(game_no: int, round_no: int, lang: str, several: bool, game: str | None = None) -> str:
    """A round's heading, in the game's word for its rounds where it has one
    (Camel Up's legs: its ``table.history_round``), as the table screen says
    it; with ``several`` games at the table, which game's.

    >>> game_heading(2, 0, "ko", True), game_heading(1, 3, "en", False), game_heading(1, 2, "en", False, "camelup")
    ('2번째 게임 · 첫 라운드 전', 'Round 3', 'Leg 2')
    """
    head = (say(lang, "table.history_round", {"round": round_no}, game) if round_no > 0
            else say(lang, "table.history_setup", None, game))
    return say(lang, "table.history_game", {"n": game_no, "round": head}) if several else head


def retracted(engine: Engine, doc: TableDoc, entry: LogEntry) -> str | None:
    """The sealed choice (``Engine.sealed_choices``) the undone ``entry`` held,
    in words, once its game is over (no longer a secret of the game: the
    table sees what was undone); None before, or for any other entry.

    >>> retracted_value({"vote": "no", "type": "vote"}, ("vote",))
    'no'
    """
    fields = engine.sealed_choices.get(entry["action"]["type"], ())
    if not fields or entry["kind"] != "game":
        return None
    start = doc["start"]
    if doc["status"] == "playing" and start is not None and entry["v"] >= start.get("v", 0):
        return None
    if "hash" in entry["action"]:
        return None  # sealed on its phone (seals.py): the server never knew the value
    return retracted_value(atrest.shown(doc["id"], entry["action"]), fields) or None


def retracted_value(action: Action, fields: tuple[str, ...]) -> str:
    return "; ".join(", ".join(map(str, v)) if isinstance(v, list) else str(v)
                     for v in (action.get(f) for f in fields) if v is not None)


def history(engine: Engine, doc: TableDoc, entries: list[LogEntry], lang: str,
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
            parts = text_parts(e, names)
            if parts is not None:  # None: a change the history does not tell (a phone's seed)
                lines.append(_Line(e["v"], e["v"], e["by"], render(lang, parts), e["v"] in undone, e["round"],
                                   game, parts=parts))
            continue
        texts = engine.history_lines(e["events"], lang, names) or [HistoryText("")]
        for i, x in enumerate(texts):
            rnd = e["round"] if x.round is None else x.round
            text = x.text
            # An action entered for a seat without a phone is its first line; the
            # lines after it are what the rules did on their own (a leg's
            # scoring, the next leg's start): nobody's, so nobody's mark.
            proxied = e.get("entered_for") if i == 0 else None
            if proxied is not None:
                text = entered_by(text, lang, names.get(proxied, proxied), names.get(e["by"] or "", "?"))
            value = retracted(engine, doc, e) if i == 0 and e["v"] in undone else None
            if value is not None:
                text = say(lang, "history.retracted", {"line": text, "value": value})
            lines.append(_Line(e["v"], e["v"], e["by"], text, e["v"] in undone, rnd, game, x.count, x.quiet,
                               proxied))
    rounds: dict[tuple[int, int], list[HistoryLine]] = {}
    for line in _fold(engine, lines, lang, names, whole=bool(page) and page[0]["v"] == 1):
        item: HistoryLine = {
            "version": line.version, "first": line.first, "by": line.by, "text": line.text,
            "undone": line.undone,
        }
        if line.entered_for is not None:
            item["entered_for"] = line.entered_for
        if line.parts is not None:
            item["parts"] = [{"key": k, "params": p} for k, p in line.parts]
        rounds.setdefault((line.game, line.round), []).append(item)
    several = bool(rematches)
    return {
        "version": doc["version"],
        "rounds": [{"game": g, "round": r, "label": game_heading(g, r, lang, several, engine.name), "entries": rounds[g, r]}
                   for g, r in sorted(rounds)],
        "more": more,
        "next_before": page[0]["v"] if more else None,
    }
