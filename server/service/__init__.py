"""The service layer: the only code that joins engines and the store.

``Tables`` is the one object the adapters (``server/http/``, ``server/live/``)
call; it only routes to the modules that do the work. The live adapter's hub
registers itself as the fan-out of this process's commits (``fan_out``).

- ``pipeline.py``  every write (``Pipeline.update``, with the seats' log budgets) and the action path (``act``)
- ``decide.py``    one action's decision, with no I/O (``decide``)
- ``write.py``     the write loop over the store's compare-and-set, and the fan-out told
- ``joining.py``   create, join, seats without a phone, rejoin codes and their claim
- ``platform_actions.py`` one record per platform action (schema, handler,
  offer, budget, history text); ``platform.py`` most of their handlers
- ``change.py``    what a handler is given and decides (``Call``, ``Outcome``), and one game
  action: who may enter it, the engine's draw and apply (``game_outcome``)
- ``replay.py``    a game rebuilt from its log (start, undo, results)
- ``hostship.py``  who holds host powers: the host, or a stand-in while its phone is away
- ``seats.py``     tokens, join codes, seat names, ``authenticate``; ``names.py``
  when a name is visible and when two are the same
- ``schemas.py``   request schemas and the one place that validates them (jsonschema-rs)
- ``snapshot.py``  what a seat sees
- ``history.py``   the history by pages, as string keys and values (the phone words them)
- ``analysis.py``  the analysis cache
- ``results.py``   a finished game's result and its BG Stats link
- ``evening.py``   every game of the table and the running total; the lobby's next game
- ``fairness.py``  checkable randomness and sealed choices: scopes, outcomes, seals
- ``fairview.py``  what phones and checkers see of them: the snapshot's ``fair``, a
  pending draw's view, the proof
- ``draws.py``     the phones' hash chains and the draw that waits for their links

The table document's types are ``server/model.py``'s; refusals are
``server/errors.py``'s ``ServiceError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engines.base import Engine
from server.errors import rate_limited
from server.model import Analysis, GameResult, History, Seat, TableDoc
from server.service import draws, fairview, history, hostship, results
from server.service.analysis import AnalysisCache
from server.service.change import Outcome
from server.service.decide import PASS
from server.service.joining import Joining
from server.service.pipeline import Pipeline, PipelineOptions, logged
from server.service.seats import authenticate
from server.service.snapshot import Views, host_filter
from server.service.write import Wrote
from server.store import Callbacks, Commit, DrawFrame, Store, Tx

if TYPE_CHECKING:
    from typing_extensions import Unpack

# Kept importable from here: the engine tests filter templates as snapshots do.
__all__ = ["Callbacks", "Tables", "host_filter"]


class Tables:
    def __init__(
        self, store: Store, engines: Callable[[str], Engine | None], **options: Unpack[PipelineOptions],
    ) -> None:
        self.store = store
        self.pipeline = Pipeline(store, engines, **options)
        self.joining = Joining(self.pipeline)
        self.limits = self.pipeline.limits
        self.analyses = AnalysisCache(before_compute=self._limit_analysis)
        # The adapters call the job's own object: no forwarder between (bound
        # here: replaced on an instance, never by a subclass's method).
        #: An action through the one pipeline (``Pipeline.act``).
        self.act = self.pipeline.act
        self.views = Views(store, self.pipeline.engine, self.pipeline.stall)
        #: What a seat sees (``Views.snapshot``), and what every seat's snapshot
        #: of one version shares (``Views.common``), built once a push.
        self.snapshot = self.views.snapshot
        self.common = self.views.common

    def fan_out(self, wrote: Wrote | None) -> None:
        """Whom each commit of this process is told, once Redis has it and
        before its caller hears back (``live.Hub.wrote``; None: nobody)."""
        self.pipeline.wrote = wrote

    def engine(self, game: str) -> Engine:
        return self.pipeline.engine(game)

    def load(self, table_id: str) -> TableDoc:
        """The table's document, or 404 ``table_not_found``."""
        return self.pipeline.load(table_id)

    def authenticate(self, doc: TableDoc, token: str | None) -> Seat | None:
        """None for a spectator (no token); 401 ``bad_token`` for a token that
        opens no seat. HTTP reads and sockets use this; writes authenticate
        again inside their transaction, with the same function."""
        return authenticate(doc, token)

    # -- writes ----------------------------------------------------------------

    def create(self, body: Any) -> tuple[TableDoc, str]:
        return self.joining.create(body)

    def table_for_code(self, code: str) -> tuple[str, str]:
        return self.joining.table_for_code(code)

    def join(self, table_id: str, body: Any) -> tuple[str, str]:
        return self.joining.join(table_id, body)

    def add_phoneless(self, table_id: str, token: str | None, body: Any) -> str:
        return self.joining.add_phoneless(table_id, token, body)

    def rejoin(self, table_id: str, token: str | None, player: str) -> str:
        return self.joining.rejoin(table_id, token, player)

    def claim(self, table_id: str, body: Any) -> tuple[str, str]:
        return self.joining.claim(table_id, body)

    def settle_host(self, table_id: str, holder_away: bool) -> bool:
        """Host powers as presence says (``hostship.change``), read here from
        the store, never from a phone: to a stand-in when the hub has seen the
        holder without a live phone for ``hostship.HOST_AWAY`` s
        (``holder_away``), back to the host when its seat has one again.
        Whether anything changed."""
        online = self.store.presence.present(table_id)

        def fn(tx: Tx) -> Commit[bool]:
            doc = tx.copy()
            found = hostship.change(doc, online, holder_away)
            if found is None:
                return Commit(None, result=False)
            action, events, by = found
            # Host powers move while a draw waits: they change no game it was checked against.
            return Commit(doc, logged(Outcome(doc, action, events), by), result=True, links=PASS)

        return self.pipeline.update(table_id, fn)

    # -- reads -----------------------------------------------------------------

    def draw_frame(self, table_id: str) -> DrawFrame | None:
        """The ``draw`` frame of the table's waiting draw as it stands now, or
        None: a hub watching a slow draw tells its phones whom it still waits
        for with it (links publish nothing)."""
        return self.store.draw_frame(table_id)

    def analysis(self, doc: TableDoc, player: str | None) -> Analysis:
        return self.analyses.get(self.engine(doc["game"]), doc, player)

    def _limit_analysis(self, table_id: str) -> None:
        wait = self.store.rates.hit("analysis", table_id, self.limits.analyses)
        if wait is not None:
            raise rate_limited(wait, "analyses at this table")

    def history(self, table_id: str, before: int | None = None,
                limit: int = history.HISTORY_PAGE) -> History:
        """The latest ``limit`` log entries below version ``before`` (None: all)."""
        doc = self.load(table_id)
        top = min(before, doc["version"] + 1) if before is not None else doc["version"] + 1
        # One entry per version, so this many from the end reach ``limit + 1``
        # entries below ``top`` (one more tells whether there are older ones);
        # the slack covers entries logged since ``doc`` was read.
        n = doc["version"] + 1 - top + limit + 1 + 16
        entries = self.store.log_tail(table_id, n)
        return history.history(self.engine(doc["game"]), doc, entries, top, limit,
                               complete=len(entries) < n)

    def proof(self, table_id: str) -> dict[str, Any]:
        """The table's proof of its random outcomes and sealed choices
        (``tablemate_verify``'s format, docs/fairness.md): whatever is
        revealed so far, for a game running or finished."""
        doc = self.load(table_id)
        return fairview.proof(doc, self.store.log(table_id))

    def result(self, doc: TableDoc, tz_minutes: int = 0) -> GameResult:
        """The finished game's result (409 ``not_over`` before its end)."""
        return results.result(self.engine(doc["game"]), doc, self.store.log(doc["id"]), tz_minutes)

    # -- what the adapters need of the store, through here (the live adapter
    # -- also holds the store's presence and listener: ``live.hub.StoreParts``)

    def find(self, table_id: str) -> TableDoc | None:
        """The table's document as stored, None once it has expired (a push
        tells its phones so; a request gets 404 from ``load``)."""
        doc, fields = self.store.load_with_links(table_id)
        return draws.overlay(doc, fields) if doc is not None else None

    def stats(self) -> dict[str, int]:
        """The store's figures of this process (``Store.stats``), for operators."""
        return self.store.stats()

    def ping(self) -> bool:
        """Whether the store answers."""
        return self.store.ping()

    def limit(self, bucket: str, client: str, limit: int) -> None:
        """Counts one request of ``client`` against ``bucket``'s limit a
        minute; 429 ``rate_limited`` when over (nothing else is done)."""
        wait = self.store.rates.hit(bucket, client, limit)
        if wait is not None:
            raise rate_limited(wait)
