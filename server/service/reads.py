"""Reads: what a seat sees of a table (snapshot), its history by pages, and
the engine's analysis, computed once per board position and viewer. Nothing
here writes (the analysis limit's counter is the caller's)."""

from __future__ import annotations

import bisect
import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engines.base import Engine
from engines.history import ROUND_WORDS, HistoryText, heading
from server.model import Action, Analysis, History, HistoryLine, LogEntry, Snapshot, TableDoc
from server.runtime import offload
from server.service.platform_text import describe_platform

#: Analyses kept per process (oldest dropped first): a few per live table.
ANALYSIS_CACHE_SIZE = 512
#: History entries per page: the default and the most one request may ask for.
HISTORY_PAGE = 200
HISTORY_PAGE_MAX = 500


def host_filter(engine: Engine, templates: list[Action], host: bool) -> list[Action]:
    """Drops host-only templates for other seats; strips the ``host`` marker."""
    out = []
    host_actions = engine.host_actions
    for t in templates:
        marked = "host" in t
        if not host and ((marked and t["host"] is True) or t["type"] in host_actions):
            continue
        # A template without the marker goes out as it is (legal_actions makes
        # them anew on every call): copying each was 1.5 % of a push.
        out.append({k: v for k, v in t.items() if k != "host"} if marked else t)
    return out


def players(engine: Engine, doc: TableDoc, state: Any, online: set[str] | None = None) -> list[dict[str, Any]]:
    """The seats as every snapshot of ``doc`` lists them (the same for every
    viewer): names, the host, each seat's public game figures, no-phone
    seats, and with ``online`` (``Store.present``) whether each is connected."""
    public = engine.public_players(state) if state is not None else {}
    out: list[dict[str, Any]] = []
    for s in doc["seats"]:
        p = {"id": s["id"], "name": s["name"], "host": s["id"] == doc["host"], **public.get(s["id"], {})}
        if s.get("phone") is False:
            p["phone"] = False
        if online is not None:
            p["connected"] = s["id"] in online
        out.append(p)
    return out


def snapshot(engine: Engine, doc: TableDoc, player: str | None, state: Any = None,
             online: set[str] | None = None, seats: list[dict[str, Any]] | None = None,
             viewer: Callable[[str | None], dict[str, Any]] | None = None) -> Snapshot:
    """What ``player`` (None: spectator) sees of the table. ``state`` may be
    passed pre-loaded when building many snapshots of one version, with
    ``seats`` (``players``) and ``viewer`` (``engine.viewer(state)``) built once
    for them all. ``online``: the seats with a live socket (``Store.present``);
    each player then carries ``connected``."""
    if doc["state"] is not None and state is None:
        state = engine.load(doc["state"])
    if seats is None:
        seats = players(engine, doc, state, online)
    host = player is not None and player == doc["host"]
    seat = None
    if player is not None:
        for s in doc["seats"]:
            if s["id"] == player:
                seat = s
                break
    sealed = bool(seat and seat.get("sealed"))
    legal: list[Action] = []
    if state is not None:
        # A sealed seat sees what a spectator sees: its own view and its legal
        # moves would both reveal its secrets to whoever holds the new token.
        view = (viewer or engine.viewer(state))(None if sealed else player)
        if player is not None and not sealed:
            legal = host_filter(engine, engine.legal_actions(state, player), host)
    else:
        view = {}
    if sealed and seat is not None and "pin" in seat:
        legal.append({"type": "unlock"})
    if host:
        if doc["status"] == "lobby":
            legal.append({"type": "seats"})
            if doc["min_players"] <= len(doc["seats"]) <= doc["max_players"]:
                legal.append({"type": "start"})
        elif doc["undoable"]:
            legal.append({"type": "undo"})
        if doc["status"] == "over":
            legal.append({"type": "play_again"})
    snap: Snapshot = {
        "table": doc["id"], "game": doc["game"], "code": doc["code"], "version": doc["version"],
        "status": doc["status"], "host": doc["host"], "me": player, "options": doc["options"],
        "min_players": doc["min_players"], "max_players": doc["max_players"],
        "round": doc["round"], "players": seats, "view": view, "legal": legal,
    }
    if host and doc["status"] != "lobby":
        # What the undo confirm names: the action it takes back (not merely the
        # newest line of history), or why there is none.
        target = doc["undoable"][-1] if doc["undoable"] else None
        snap["undo"] = {"target": target, "sealed": target is None and "sealed_at" in doc}
    if seat is not None:
        snap["sealed"] = sealed
        snap["pin"] = "pin" in seat
        snap["proxies"] = proxies(engine, doc, player, state)
    snap["proxies_who"] = doc.get("proxies", "host")
    return snap


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


def proxies(engine: Engine, doc: TableDoc, player: str | None, state: Any) -> dict[str, list[Action]]:
    """Per seat without a phone that ``player`` may act for (``as``), its legal
    templates as a guest's (``as`` never carries host powers). Never its view:
    the engine's templates for a paper seat hold public choices only."""
    if player is None or (player != doc["host"] and doc.get("proxies") != "all"):
        return {}
    out: dict[str, list[Action]] = {}
    for s in doc["seats"]:
        if s.get("phone") is False:
            legal = engine.legal_actions(state, s["id"]) if state is not None else []
            out[s["id"]] = host_filter(engine, legal, False)
    return out


#: How history marks an action entered for a seat without a phone (``as``):
#: after the seat's name when the line starts with it, else before the line.
ENTERED_BY = {"ko": "{seat} ({by} 입력)", "en": "{seat} (entered by {by})"}


def entered_by(text: str, lang: str, seat: str, by: str) -> str:
    """``text`` marked as entered by ``by`` for ``seat``.

    >>> entered_by("민준: 빨강 구간 베팅 티켓 (5) 가져감", "ko", "민준", "유나")
    '민준 (유나 입력): 빨강 구간 베팅 티켓 (5) 가져감'
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


def state_key(doc: TableDoc) -> str:
    """A digest of the game state: the analysis depends on nothing else, so a
    rename (a new version, the same board) reuses it, and so does an undo back
    to a position already analysed."""
    raw = json.dumps(doc["state"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()


class AnalysisCache:
    """The engine's analysis of a board position, computed once per process,
    position and viewer: every phone asks right after each change, and the
    first one computes (off the event loop) while the others wait for it.
    ``before_compute(table_id)`` runs before each fresh computation and may
    refuse it by raising (the per-table limit)."""

    def __init__(self, size: int = ANALYSIS_CACHE_SIZE,
                 before_compute: Callable[[str], None] | None = None) -> None:
        self.size = size
        self.before_compute = before_compute
        self._cache: dict[tuple[str, str, str | None], Analysis] = {}
        self._pending: dict[tuple[str, str, str | None], threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, engine: Engine, doc: TableDoc, player: str | None) -> Analysis:
        state = engine.load(doc["state"]) if doc["state"] is not None else None
        if state is None:
            return {"version": doc["version"], "analysis": None}
        if any(s["id"] == player and s.get("sealed") for s in doc["seats"]):
            player = None  # a sealed seat's analysis could hint at its secrets
        viewer = engine.analysis_viewer(state, player)
        key = (doc["id"], state_key(doc), viewer)
        with self._lock:
            hit = self._cache.get(key)
            waiting = self._pending.get(key) if hit is None else None
            mine = hit is None and waiting is None
            if mine:
                waiting = self._pending[key] = threading.Event()
        if hit is not None:
            return self._at(hit, doc["version"])
        assert waiting is not None
        if not mine:
            waiting.wait(60)
            with self._lock:
                hit = self._cache.get(key)
            return self._at(hit, doc["version"]) if hit else {"version": doc["version"], "analysis": None}
        try:
            if self.before_compute is not None:
                self.before_compute(doc["id"])
            hit = {"version": doc["version"], "analysis": offload(lambda: engine.analysis(state, viewer))}
            with self._lock:
                self._cache[key] = hit
                while len(self._cache) > self.size:
                    self._cache.pop(next(iter(self._cache)))
        finally:
            with self._lock:
                self._pending.pop(key, None)
            waiting.set()
        return hit

    @staticmethod
    def _at(hit: Analysis, version: int) -> Analysis:
        """A cached answer, named for the version asked about (the board may be
        the same several versions on: renames, seat changes)."""
        return hit if hit["version"] == version else {"version": version, "analysis": hit["analysis"]}
