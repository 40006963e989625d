"""Table routing (issue 39): every request and socket of a table goes to the
one instance that owns it, so a change is heard by one instance, not by every
instance that happens to hold one of the table's phones (docs/deploy.md,
"Scaling out").

On Fly.io (``TABLEMATE_ROUTE=fly``) an instance that gets a table's request
which another instance owns answers only with the ``fly-replay`` header, and
Fly's proxy replays the request (a socket's upgrade included) there. It names
the owner with ``prefer_instance``: an owner that has just died is skipped by
the proxy, and the instance that gets the replay serves it (a replayed request
carries ``fly-replay-src`` and is never bounced again), through the
cross-instance path every instance keeps (the table's channel).

Owners come from rendezvous hashing over the instances alive in the store
(``server/store/instances.py``): every instance computes the same owner, and
when one comes or goes only its own tables move.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Sequence

from flask import Flask, Response, jsonify, request

from server.errors import StoreOrSocketDown

log = logging.getLogger(__name__)

#: Seconds between an instance's beats (and its reads of the others).
BEAT = 3.0
#: The header Fly's proxy adds to a replayed request.
REPLAYED = "Fly-Replay-Src"


def owner(table_id: str, members: Sequence[str]) -> str | None:
    """The instance that owns a table: the member with the highest hash of
    (member, table). None without members.

    >>> owner("AbC", ["m1", "m2", "m3"]) == owner("AbC", ["m3", "m1", "m2"])
    True
    >>> owner("AbC", []) is None
    True
    """
    best: tuple[bytes, str] | None = None
    for m in members:
        score = hashlib.blake2b(f"{m}\0{table_id}".encode(), digest_size=8).digest()
        if best is None or score > best[0]:
            best = (score, m)
    return None if best is None else best[1]


class Router:
    """One instance's view of the deployment: who it is, who else is alive."""

    def __init__(self, me: str, beat: Callable[[str], list[str]], every: float = BEAT) -> None:
        self.me = me
        self.beat = beat
        self.every = every
        self.members: tuple[str, ...] = ()
        self.lock = threading.Lock()
        self.started = False
        self.stop = threading.Event()
        self.down = False

    def refresh(self) -> None:
        """One beat: this instance alive, the others read. A store that does
        not answer keeps the last members (the proxy skips a dead owner)."""
        try:
            members = tuple(self.beat(self.me))
        except StoreOrSocketDown as exc:
            if not self.down:
                log.warning("table routing: the store did not answer (%s); routing by the last members", exc)
            self.down = True
            return
        if self.down:
            log.info("table routing: the store answers again")
        self.down = False
        if members != self.members:
            log.info("table routing: instances %s", ", ".join(members))
        self.members = members

    def run(self) -> None:
        while not self.stop.wait(self.every):
            self.refresh()

    def ensure_started(self) -> None:
        # Started in the worker on its first request of any kind (after
        # gevent patched threading; the platform's health checks come first),
        # with one beat first so the first answer knows the others.
        if self.started:
            return
        with self.lock:
            if self.started:
                return
            self.started = True
            self.refresh()
        threading.Thread(target=self.run, name="tablemate-routing", daemon=True).start()

    def elsewhere(self, table_id: str) -> str | None:
        """The instance a table's request should be replayed to, or None to serve it here."""
        found = owner(table_id, self.members)
        return None if found is None or found == self.me else found


def init_app(app: Flask, router: Router) -> None:
    @app.before_request
    def route_to_owner() -> Response | None:
        router.ensure_started()
        table_id = (request.view_args or {}).get("table_id")
        if not isinstance(table_id, str) or request.headers.get(REPLAYED) is not None:
            return None
        target = router.elsewhere(table_id)
        if target is None:
            return None
        # Fly's proxy acts on the header and never shows this answer; a client
        # reaching the app without the proxy gets a plain error instead.
        resp = jsonify({"error": {"code": "wrong_instance",
                                  "message": "This table is served by another instance of the app."}})
        resp.status_code = 409
        resp.headers["fly-replay"] = f"prefer_instance={target}"
        return resp
