"""Tablemate server: ``flask --app server run`` serves the API, sockets and PWA."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from engines import registry
from engines.base import Engine
from server import config, http, live
from server.http import routing
from server.service import Tables
from server.store import Store

log = logging.getLogger(__name__)


@dataclass
class Services:
    """What ``create_app`` made, kept on the app (``app.extensions["tablemate"]``):
    the views reach the service and the hub's socket count through it."""

    store: Store
    tables: Tables
    hub: live.Hub
    #: Every game this app serves by name (``games``).
    by_name: dict[str, Engine]

    def engine(self, name: str) -> Engine | None:
        return self.by_name.get(name)

    def engines(self) -> list[Engine]:
        return [e for _, e in sorted(self.by_name.items())]


def games(extra: list[Engine]) -> dict[str, Engine]:
    """The registry's games and the test-only ones of ``EXTRA_ENGINES``
    (which win a name), fixed at start: the service looks a table's game up
    on every action, in this dict itself, with no layer of ours between."""
    found = {n: e for n in registry.names() if (e := registry.get(n)) is not None}
    found.update({e.name: e for e in extra})
    return found


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """config → the store → the service, with the live hub as its fan-out →
    the two adapters (HTTP, WebSocket)."""
    app = Flask(__name__, static_folder=None)
    app.config.update(config.from_env())
    if test_config:
        app.config.update(test_config)
    config.check_public_url(app.config)
    if isinstance(app.json, DefaultJSONProvider):
        app.json.ensure_ascii = False  # Korean names stay readable

    store = Store.connect(app.config["REDIS_URL"], app.config["TABLE_TTL"])
    by_name = games(app.config["EXTRA_ENGINES"])
    tables = Tables(store, by_name.get,
                    fixed_random=app.config["FIXED_RANDOM"], limits=config.Limits.from_config(app.config))
    hub = live.Hub(tables, store)
    tables.fan_out(hub.wrote)
    app.extensions["tablemate"] = Services(store, tables, hub, by_name)

    if app.config["FIXED_RANDOM"]:
        log.warning("!" * 72)
        log.warning("TABLEMATE_FIXED_RANDOM is ON: clients may choose dice and cards. TESTS ONLY.")
        log.warning("!" * 72)
    if store.embedded:
        log.info("No REDIS_URL: using the embedded in-process store (tables vanish on restart).")

    if app.config["ROUTE"] == "fly":
        if not app.config["INSTANCE_ID"]:
            raise RuntimeError("TABLEMATE_ROUTE=fly needs FLY_MACHINE_ID (Fly sets it on every machine)")
        # First: a table's request that another instance owns goes there before anything reads it.
        routing.init_app(app, routing.Router(app.config["INSTANCE_ID"], store.instances_beat))
    http.init_app(app)
    live.init_app(app, hub)
    return app
