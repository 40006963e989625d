"""The shapes the service keeps in the store: the table document, its seats,
the start record, the action log and the request-id cache.

TypedDicts rather than dataclasses: the document is JSON in Redis and is parsed
on every read (``Tx.copy``), so a typed view of the parsed dict costs nothing,
and the stored format stays byte-for-byte what it was.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from engines.history import Part, Value
from server.fairdoc import FairDoc, FairLog, FairView

#: An action as logged and as ``Engine.apply`` sees it (``{"type": …, …}``).
Action = dict[str, Any]
#: A public event, as the engine or the platform reports it.
Event = dict[str, Any]

Status = Literal["lobby", "playing", "over"]
#: "platform": handled by the service (create, join, start, undo, …); "game": by the engine.
Kind = Literal["platform", "game"]


class Seat(TypedDict):
    id: str
    name: str
    #: SHA-256 of the seat token (``seats.token_hash``); the token itself is never kept.
    th: str
    #: The seat's recovery PIN, salted and stretched (``seats.pin_hash``); never the PIN.
    pin: NotRequired[PinHash]
    #: True after a rejoin code opened this seat on a new phone mid-game: that
    #: token sees no secret and may only ``unlock`` until the seat's own PIN
    #: proves its owner holds it (the host saw the code first).
    sealed: NotRequired[bool]
    #: The host's seat opened by a code another seat made (``hostship.seal_claim``):
    #: its seal guards the host's powers, not a game's secrets, so it outlives
    #: ``play_again``; only the seat's PIN lifts it.
    seal_kept: NotRequired[bool]
    #: This game's logged changes by this seat: chatter (``pipeline.CHATTER``)
    #: and the rest (``server/service/pipeline.py``: ``charge``; absent: none yet).
    chat: NotRequired[int]
    n: NotRequired[int]
    #: A pending rejoin code for this seat (``claim``), kept as its SHA-256;
    #: the phone that redeems it gets a fresh token and the code dies.
    claim: NotRequired[Claim]
    #: False for a seat without a phone (absent: it has one); the host, or
    #: any seated phone when ``TableDoc.proxies`` is "all", acts for it with
    #: ``as`` (``pipeline.Pipeline.act``). Added without a phone, it has no
    #: token (``th`` is ``seats.NO_TOKEN``, which no token hashes to); taken
    #: off its phone (``phoneless``), ``th`` stays its phone's: that phone is
    #: *paused* (``seats.paused``: it sees what a spectator sees and may do
    #: nothing) until the host hands the seat back to it (``phone_back``).
    phone: NotRequired[bool]
    #: Handed back to its phone (``phone_back``) and not yet confirmed there:
    #: the phone sees what a spectator sees until its owner taps ``resume``.
    back: NotRequired[bool]


class Claim(TypedDict):
    #: SHA-256 of the rejoin code (``seats.token_hash``); the code itself is never kept.
    h: str
    #: When it expires (epoch seconds).
    exp: float
    #: The seat that made it (``hostship.seal_claim``: the host's seat by another's code).
    by: NotRequired[str]


class PinHash(TypedDict):
    salt: str
    hash: str


class StartRecord(TypedDict):
    """What ``start`` fixed: undo replays the log from ``setup(players, options)``."""

    players: list[str]
    options: dict[str, Any]
    #: The version of this ``start`` in the log: the current game's actions are
    #: the later ones (``play_again`` starts another game on the same log).
    #: Tables started before it was kept have one game, from the beginning.
    v: NotRequired[int]
    #: Seats without a phone at the start: ``replay.initial_state`` marks
    #: them as paper right after ``setup`` (absent: none).
    paper: NotRequired[list[str]]


class TableDoc(TypedDict):
    id: str
    #: The lobby's join code; None once the game has started.
    code: str | None
    game: str
    options: dict[str, Any]
    status: Status
    version: int
    host: str
    #: The seat holding host powers while the host's seat has no live phone
    #: (``service/hostship.py``); absent when the host holds them.
    stand_in: NotRequired[str]
    seats: list[Seat]
    next_pid: int
    #: ``Engine.dump`` of the state; None in the lobby.
    state: Any
    start: StartRecord | None
    round: int
    #: Versions of the game actions that undo may still take back, oldest first.
    undoable: list[int]
    min_players: int
    max_players: int
    created: float
    #: Random outcomes of undone actions, last undone last: the next action of
    #: the same type (by the same seat, for a private draw) reveals the same
    #: outcome again instead of drawing anew (``pipeline.Pipeline``).
    stash: NotRequired[list[Stashed]]
    #: The version of the last action that revealed secrets; undo stops there.
    sealed_at: NotRequired[int]
    #: Who may act for a seat without a phone: "host" (absent) or "all" seated phones.
    proxies: NotRequired[Literal["host", "all"]]
    #: The lobby's join code while a game is on: it keeps naming the table (its
    #: key's TTL is refreshed with the table's), and "play again" shows it again.
    held_code: NotRequired[str]
    #: The versions of every "play again": the history groups each game apart.
    rematches: NotRequired[list[int]]
    #: Who made the last "play again" (``service/evening.py``: the lobby says so).
    rematch_by: NotRequired[str]
    #: Checkable randomness and sealed choices (``service/fairness.py``):
    #: secrets, salts and sealed values, never in any view or event.
    fair: NotRequired[FairDoc]
    #: Per seat the game waits for now (``Engine.waiting``), since when (epoch
    #: seconds): recorded at the commit that made it wait (``stall.note_waits``).
    waits: NotRequired[dict[str, float]]
    #: The host's reminder (``reminder``): after this many seconds of waiting
    #: for a seat, its phone rings and every phone shows the wait. Absent: off.
    reminder: NotRequired[int]
    #: Seats whose sealed choice (a vote, a locked sheet, a face-down card) the
    #: host's undo took back: they choose again on their own phone, and until
    #: they have, nobody skips them, enters for them or takes them off it
    #: (``stall.py``). A seat leaves the list once the game stops waiting for it.
    reopened: NotRequired[list[str]]
    #: The latest step the host took for another seat (``stall.HostStep``):
    #: every phone announces it with the snapshot of its version.
    step: NotRequired[HostStep]


class HostStep(TypedDict):
    """A host's step for another seat: what (``skip``, ``phoneless``,
    ``phone_back``, ``as``, ``undo``), for whom, at which version."""

    v: int
    type: str
    seat: str
    by: str


class Stashed(TypedDict):
    type: str
    player: str
    fields: dict[str, Any]


class LogEntry(TypedDict):
    v: int
    by: str | None
    round: int
    kind: Kind
    action: Action
    events: list[Event]
    at: float
    #: The request_id that made this change (game actions), so undo can retire it.
    rid: NotRequired[str]
    #: The seat without a phone this action was entered for (``as``); ``by``
    #: is the phone that entered it.
    entered_for: NotRequired[str]
    #: The scopes and seals this change revealed (``service/fairness.py``).
    fair: NotRequired[FairLog]


class ActionResult(TypedDict):
    """What ``act`` returns, over HTTP and in a socket ``result`` frame."""

    version: int
    events: list[Event]


class RequestRecord(TypedDict):
    """The first result of a request_id, so a retry returns it and applies nothing."""

    by: str
    result: ActionResult
    #: The version it made: records older than the request window are dropped.
    v: NotRequired[int]
    #: Set when undo took the change back: a retry is refused (``request_undone``).
    undone: NotRequired[bool]


class Snapshot(TypedDict):
    """What one seat (``me``; None: the spectator) sees of a table."""

    table: str
    game: str
    code: str | None
    #: ``me``'s seat is sealed (re-issued mid-game, PIN not yet entered): ``view``
    #: is the spectator's and ``legal`` holds only what cannot reveal a secret.
    sealed: NotRequired[bool]
    #: ``me`` has a recovery PIN.
    pin: NotRequired[bool]
    version: int
    status: Status
    #: The seat holding host powers now: the stand-in while the host is away.
    host: str
    #: The host's seat while a stand-in holds its powers (``service/hostship.py``).
    host_away: NotRequired[str]
    #: In the lobby after "play again": ``{"game": n, "by": seat}`` (``service/evening.py``).
    evening: NotRequired[dict[str, Any]]
    me: str | None
    options: dict[str, Any]
    min_players: int
    max_players: int
    round: int
    #: ``{"id", "name", "host", "connected"}`` plus the engine's public figures
    #: (``money``, …), open-ended, hence a plain dict. ``connected``: the seat has
    #: a live socket right now, on any instance (``Presence.present``).
    players: list[dict[str, Any]]
    view: dict[str, Any]
    legal: list[Action]
    #: Per seat without a phone that ``me`` may act for (``as``), what is
    #: waiting to be entered for it: legal templates only, never its view.
    proxies: NotRequired[dict[str, list[Action]]]
    #: Who may act for seats without a phone: "host" or "all".
    proxies_who: NotRequired[str]
    #: The host's, once a game has started: what undo would take back now.
    undo: NotRequired[UndoInfo]
    #: The public side of checkable randomness (``fairness.public``): the
    #: open scopes' commitments and who seeded them, the seals' hashes.
    fair: NotRequired[FairView]
    #: ``me``'s seat is off its phone: "phoneless" (the host enters for it and
    #: may hand it back) or "handed_back" (waiting for its owner's ``resume``).
    #: ``view`` is the spectator's meanwhile.
    paused: NotRequired[str]
    #: While a game is on: per seat in ``view.waiting``, since when the game
    #: waits for it, and the server's clock when this snapshot was built
    #: (epoch seconds), so a phone needs no clock of its own to tell the wait.
    waiting_since: NotRequired[dict[str, float]]
    now: NotRequired[float]
    #: The host's reminder in seconds (0: off).
    reminder: NotRequired[int]
    #: While a game is on: per seat in ``view.waiting``, from when (epoch
    #: seconds) the host may go on without it (``skip``); absent for a seat
    #: that chooses again after an undo (never). ``held``: the host's
    #: ``skip`` templates the engine accepts but the wait does not allow yet.
    step_in: NotRequired[dict[str, float]]
    held: NotRequired[list[Action]]
    #: Seats that choose again on their own phone after an undo (``TableDoc.reopened``).
    reopened: NotRequired[list[str]]
    #: The host's step for another seat made at this very version, for every
    #: phone to announce (``TableDoc.step``).
    step: NotRequired[HostStep]


class UndoInfo(TypedDict):
    #: The version of the game action undo takes back; None: nothing to undo.
    target: int | None
    #: Nothing to undo because a reveal sealed everything before it.
    sealed: bool


#: A piece of a history line: a key of ``web/i18n/*.json`` or of a game's
#: ``strings.js`` (``<game>.history.*``) and its values.
HistoryPart = Part


class HistoryLine(TypedDict):
    #: The newest action the line tells of, and the oldest (they differ when
    #: the line folds a stretch of calls).
    version: int
    first: int
    by: str | None
    #: The line as string keys and values: the phone words it in its own language.
    parts: list[HistoryPart]
    undone: bool
    #: Entered with ``as`` for this seat without a phone (``by`` entered it).
    entered_for: NotRequired[str]
    #: The sealed choice an undone line held, once no secret of the game: a
    #: value as a part's (``engines.history.Value``), worded by the phone.
    retracted: NotRequired[Value]


class HistoryRound(TypedDict):
    #: Which game of the table (1, then one more after each "play again").
    game: int
    round: int
    entries: list[HistoryLine]


class History(TypedDict):
    version: int
    #: How many games the table has played (1, then one more per "play again").
    games: int
    #: The names of the seats ``entered_for`` lines name (and who entered them).
    names: dict[str, str]
    rounds: list[HistoryRound]
    #: Whether older entries exist; ask again with ``before=next_before``.
    more: bool
    next_before: int | None


class Analysis(TypedDict):
    version: int
    #: The engine's advice for this version and viewer; None when it has none.
    analysis: dict[str, Any] | None


class GameResult(TypedDict):
    """A finished game's result (``GET /api/tables/<id>/result``)."""

    table: str
    game: str
    version: int
    #: ISO 8601, UTC, of the game's start and of the action that ended it.
    started_at: str
    finished_at: str
    duration_min: int
    #: Best rank first, seat order among equals: ``{"id", "name", "score"
    #: (the game's own final figure; None where the app does not track it),
    #: "rank" (ties share: 1, 1, 3), "winner" (the rules' tie-breaks decide),
    #: "start_player"}`` plus the game's own figures (Count Up ``stars``).
    players: list[dict[str, Any]]
    #: Per leg / round, the game's own figures (docs/results.md).
    rounds: list[dict[str, Any]]
    #: Game-specific facts about the end (tie-break, end reason, …).
    details: dict[str, Any]
    #: BG Stats' import links: the app scheme (phones) and the https form (elsewhere).
    bgstats: str
    bgstats_web: str
    #: Every finished game at this table and the running total, from the
    #: second on (``service/evening.py``).
    evening: NotRequired[dict[str, Any]]
