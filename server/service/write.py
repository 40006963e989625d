"""The service's one write loop over the store's compare-and-set.

``update`` reads the table (or starts from a document its caller read), runs
the update's function on it (a decision: it reads what ``Tx`` gives and
returns a ``Commit``, doing no I/O of its own but the log ``Tx.log`` reads),
and hands the commit to ``Store.commit``. A commit refused because the
table moved runs the function again on the new document; one refused
because a request id it took for unseen has a record runs it again knowing
the record. Once Redis has a change, the function's ``wrote`` (this
process's fan-out) is told, then the caller gets its result: the store
never calls back up.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from server.errors import ServiceError
from server.model import TableDoc
from server.store import CHANGED, DONE, GONE, PENDING, RATED, RECORDED, Commit, Primed, Store, Tx
from server.store.commit import R
from server.wire import loads

#: What a commit of this process is told to (``live.Hub.wrote``): table id,
#: version, the document, its engine state (None when the update made none).
#: It must never raise into the commit, nor wait on a phone.
Wrote = Callable[[str, int, TableDoc, Any], None]

MAX_ATTEMPTS = 200


def draw_pending() -> ServiceError:
    """409 ``draw_pending``: the store refused a change while a draw waits
    for the phones' links (``store/links.py``), although the decision, made
    on a document that did not show it, let it through."""
    return ServiceError("conflict", "draw_pending",
                        "A draw is waiting for the phones' links; try again in a moment.")


class Conflict(Exception):
    """Raised by ``update`` when the table stayed too contended to commit
    within ``MAX_ATTEMPTS`` (nothing was written)."""


class RateLimited(Exception):
    """Raised by ``update`` when a rate counter it was given is over its
    limit (nothing was written); ``wait``: seconds until the next window."""

    def __init__(self, wait: int) -> None:
        super().__init__(wait)
        self.wait = wait


def update(store: Store, table_id: str, fn: Callable[[Tx], Commit[R]],
           hits: Sequence[tuple[str, str, int]] = (), wrote: Wrote | None = None) -> R:
    """Read-modify-write of one table with optimistic locking.

    ``fn`` sees the current document and returns a ``Commit``; if another
    writer committed in between, the commit is refused and ``fn`` runs
    again on the new document. ``fn`` raises to refuse (nothing is
    written). Returns ``Commit.result``. A ``Commit`` whose ``doc`` is None
    writes nothing. Raises ``Conflict`` after ``MAX_ATTEMPTS`` lost races,
    ``KeyError`` for a table that is not there. A ``Primed`` function
    starts from its document: one round trip when nobody else wrote in
    between.

    ``hits`` (as for ``Rates.hit_many``) are counted once per call: with the
    write, in the same round trip, or by ``hit_many`` when nothing is
    written (a refusal, a retry answered from its record). Over a limit,
    nothing is written and ``RateLimited`` is raised instead, but for a
    retry: it gets its record's answer.

    ``wrote`` is told what was committed as soon as Redis has it, before
    this returns (the listener skips that change's message; it hands it on
    only when nobody is told).
    """
    try:
        return _update(store, table_id, fn, hits, wrote)
    except (RateLimited, KeyError):
        raise
    except Exception:
        _count_unwritten(store, hits, table_id)
        raise


def _count_unwritten(store: Store, hits: Sequence[tuple[str, str, int]], table_id: str) -> None:
    if hits:
        wait = store.rates.hit_many(hits, table=table_id)
        if wait is not None:
            raise RateLimited(wait)


def _update(store: Store, table_id: str, fn: Callable[[Tx], Commit[R]],
            hits: Sequence[tuple[str, str, int]], wrote: Wrote | None) -> R:
    raw = fn.raw if isinstance(fn, Primed) else None
    parsed = fn.doc if isinstance(fn, Primed) else None
    # A primed document may be this process's kept copy (Latest), one change
    # behind: a commit finds that out itself, but a refusal or a write-nothing
    # answer made on it is checked against the stored document first.
    verified = raw is None
    known: dict[str, Any] = {}
    for attempt in range(MAX_ATTEMPTS):
        if raw is None:
            # A commit keeps its own document; an attempt reads one only to build on it.
            raw = store.stored(table_id, keep=False)
            verified = True
        tx = Tx(table_id, loads(raw) if parsed is None else parsed, raw, known, read_log=store.log,
                read_links=store.links)
        parsed = None  # only the first attempt's document was given
        refused: Exception | None = None
        try:
            commit: Commit[R] | None = fn(tx)
        except Exception as exc:
            commit, refused = None, exc
        if commit is None or (commit.doc is None and commit.announce is None):
            # Nothing to write: a refusal, or an answer (a replay's). It may
            # come of a request id taken for unseen that has a record after
            # all (a retry of an applied action is "not your turn" now), or
            # of a kept document that is no longer the stored one: then fn
            # runs again.
            found = store.records(table_id, tx.assumed)
            if found:
                known.update(found)
                continue
            if not verified:
                stored, verified = store.stored(table_id), True
                if stored != raw:
                    raw, known = stored, {}
                    continue
            if refused is not None:
                raise refused
            assert commit is not None
            # An answer, not a refusal (a retry of an applied request, answered from
            # its record): counted, never refused for the rate. Refused, the phone
            # would take its action for not applied, and the player tap it again.
            if hits:
                store.rates.hit_many(hits, table=table_id)
            return commit.result
        verdict = store.commit(table_id, int(tx.doc["version"]), commit, tx.assumed, hits,
                               told=wrote is not None)
        if verdict.status == DONE:
            # A draw held (``commit.announce``) made no version: its frame went out from its script.
            if wrote is not None and commit.doc is not None:
                wrote(table_id, verdict.version, commit.doc, commit.state)
            return commit.result
        if verdict.status == PENDING:
            raise draw_pending()
        if verdict.status == RATED:
            raise RateLimited(verdict.wait)
        if verdict.status == GONE:
            raise KeyError(table_id)
        if verdict.status == RECORDED:
            # The document is unchanged: run again at once, knowing the records.
            known.update(verdict.found)
            continue
        assert verdict.status == CHANGED
        raw, known = None, {}
        # Jittered backoff, with the connection back in the pool, so twenty
        # phones hammering one table all get through.
        time.sleep(random.uniform(0, 0.001 * min(attempt + 1, 20)))
    raise Conflict(f"table {table_id} too contended")
