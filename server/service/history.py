"""A table's history by pages, as lines of a score pad by round: the
engine's lines of each logged change, the platform's own (``platform_text``),
an action entered for a seat without a phone marked as such, and a stretch
of numbers counted aloud folded into one line. Nothing here writes."""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass

from engines.base import Engine
from engines.history import ROUND_WORDS, HistoryText, heading
from server.model import Action, History, HistoryLine, LogEntry, TableDoc
from server.service.platform_text import describe_platform

#: Changes the history does not tell: a phone's seed for the fair dice (the
#: proof lists them; a line per phone and leg would bury the game).
SILENT = frozenset({"seed", "anchor", "link", "draw_pending"})  # "seed": tables logged before issue 38
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


#: How history marks an action entered for a seat without a phone (``as``):
#: after the seat's name when the line starts with it, else before the line.
ENTERED_BY = {"ko": "{seat} ({by} 입력)", "en": "{seat} (entered by {by})"}


def entered_by(text: str, lang: str, seat: str, by: str) -> str:
    """``text`` marked as entered by ``by`` for ``seat``.

    >>> entered_by("민준: 빨강 레그 베팅 티켓 (5) 가져감", "ko", "민준", "유나")
    '민준 (유나 입력): 빨강 레그 베팅 티켓 (5) 가져감'
    >>> entered_by("Red won.", "en", "Minjun", "Yuna")
    'Minjun (entered by Yuna): Red won.'
    """
    mark = ENTERED_BY["ko" if lang == "ko" else "en"].format(seat=seat, by=by)
    if text.startswith(seat):
        return mark + text[len(seat):]
    return f"{mark}: {text}"


#: How the history heads a round of a table that played more than one game.
GAME_HEADING = {"ko": "{n}번째 게임 · {round}", "en": "Game {n} · {round}"}


def game_heading(game: int, round_no: int, lang: str, several: bool,
                 words: Mapping[str, tuple[str, str]] = ROUND_WORDS) -> str:
    """A round's heading (``words``: the engine's ``round_words``); with
    ``several`` games at the table, which game's.

    >>> game_heading(2, 0, "ko", True), game_heading(1, 3, "en", False)
    ('2번째 게임 · 첫 라운드 전', 'Round 3')
    """
    head = heading(round_no, lang, words)
    return GAME_HEADING["ko" if lang == "ko" else "en"].format(n=game, round=head) if several else head


#: What a sealed choice taken back by an undo was, once its game is over.
RETRACTED = {"ko": "{line} (되돌리기로 취소된 비밀 선택: {value})", "en": "{line} (a sealed choice taken back by an undo: {value})"}


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
    return retracted_value(entry["action"], fields) or None


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
        if e["action"]["type"] in SILENT:
            continue
        game = 1 + bisect.bisect_right(rematches, e["v"])
        if e["kind"] == "game":
            texts = engine.history_lines(e["events"], lang, names) or [HistoryText("")]
        else:
            texts = [HistoryText(describe_platform(e, lang, names))]
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
                text = RETRACTED["ko" if lang == "ko" else "en"].format(line=text, value=value)
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
        rounds.setdefault((line.game, line.round), []).append(item)
    several = bool(rematches)
    return {
        "version": doc["version"],
        "rounds": [{"game": g, "round": r, "label": game_heading(g, r, lang, several, engine.round_words), "entries": rounds[g, r]}
                   for g, r in sorted(rounds)],
        "more": more,
        "next_before": page[0]["v"] if more else None,
    }
