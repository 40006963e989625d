"""Configuration from the environment, read once by the app factory."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def trust_proxy(value: str | None) -> str | int:
    """``TABLEMATE_TRUST_PROXY``: ``fly`` (Fly-Client-IP), a number of trusted
    proxy hops in front of the app (X-Forwarded-For), or off (0).

    >>> trust_proxy("fly"), trust_proxy("2"), trust_proxy(None), trust_proxy("")
    ('fly', 2, 0, 0)
    """
    value = (value or "").strip().lower()
    if value in {"", "0", "no", "off", "false"}:
        return 0
    if value == "fly":
        return "fly"
    if value in {"yes", "on", "true"}:
        return 1
    if value.isdigit():
        return int(value)
    raise ValueError(f"TABLEMATE_TRUST_PROXY must be 'fly', a number of hops or off, not {value!r}")


@dataclass(frozen=True)
class Limits:
    """What one seat and one table may use (``server/service/pipeline.py``: ``charge``); the rates
    are per minute and shared by every instance through Redis
    (``Rates.hit_many``). Every budget is a seat's own: a shared pool lets a
    few flooding seats lock the others out.

    The action rate leaves real play behind (Count Up's caller at its fastest
    pace: 600 a minute; the other e2e games peak at 9 a minute per seat,
    bench/load.py --short at 8) and stops a flooding phone within a minute. A
    seat's share of a game's log is several times what the longest game in the
    tests needs (Camel Up with undo and redo every few actions: under 700
    changes in all; Count Up's caller at most 280 numbers a game).
    """

    #: Actions per seat and minute (``TABLEMATE_RATE_ACTIONS_SEAT``).
    # Count Up's caller sends one action per number, as fast as one every 100 ms
    # (countIntervalMs' minimum): 600 a minute from one seat is real play.
    seat_actions: int = 900
    #: Chatter (renames, PINs, seat order, ...: ``pipeline.CHATTER``) per seat and
    #: minute (``TABLEMATE_RATE_CHATTER``), within ``seat_actions``.
    chatter_rate: int = 10
    #: Chain anchors per seat and minute (``TABLEMATE_RATE_ANCHORS``), within
    #: ``seat_actions``. A phone anchors as it opens a table, when its chain of 256
    #: links runs out, and after a link of its was not counted: a few an hour. Two
    #: tabs of an app from before their fix anchored over each other ~100 times a
    #: minute, each a version pushed to every phone and a line of the table's log.
    anchor_rate: int = 10
    #: Chatter per seat and game (``TABLEMATE_MAX_CHATTER``).
    seat_chatter: int = 30
    #: Other logged changes per seat and game, the host twice as many (``TABLEMATE_MAX_SEAT_LOG``).
    seat_entries: int = 1000
    #: Fresh analyses per table and minute (``TABLEMATE_RATE_ANALYSIS``); one
    #: per board position and viewer, shared by every phone that asks.
    analyses: int = 60
    #: Logged changes per table, every game together (``TABLEMATE_MAX_LOG``):
    #: past it no new game starts (``table_log_full``), the current one finishes.
    log_entries: int = 10000
    #: A request_id is remembered (its retry returns the first result) for at
    #: least this many versions after it was applied.
    request_window: int = 500
    #: How long (s) the game must have waited for a seat whose phone is live
    #: before the host may go on without it (``skip``) when no reminder is set
    #: (``TABLEMATE_STALL_AFTER``; ``stall.StallRule``): tests and e2e set it short.
    stall_after: float = 60.0
    #: The same for a seat whose phone has no live socket (``TABLEMATE_STALL_OFFLINE``),
    #: never longer than the other.
    stall_offline: float = 15.0
    #: How long (s) a draw waits for the phones' links before any seated phone
    #: may make it without the missing ones (``TABLEMATE_DRAW_WAIT``; ``draws.py``).
    draw_wait: float = 3.0

    @classmethod
    def from_config(cls, cfg: Any) -> Limits:
        return cls(
            seat_actions=int(cfg.get("RATE_ACTIONS_SEAT", cls.seat_actions)),
            chatter_rate=int(cfg.get("RATE_CHATTER", cls.chatter_rate)),
            anchor_rate=int(cfg.get("RATE_ANCHORS", cls.anchor_rate)),
            seat_chatter=int(cfg.get("MAX_CHATTER", cls.seat_chatter)),
            seat_entries=int(cfg.get("MAX_SEAT_LOG", cls.seat_entries)),
            analyses=int(cfg.get("RATE_ANALYSIS", cls.analyses)),
            log_entries=int(cfg.get("MAX_LOG", cls.log_entries)),
            request_window=int(cfg.get("REQUEST_WINDOW", cls.request_window)),
            stall_after=float(cfg.get("STALL_AFTER", cls.stall_after)),
            stall_offline=float(cfg.get("STALL_OFFLINE", cls.stall_offline)),
            draw_wait=float(cfg.get("DRAW_WAIT", cls.draw_wait)),
        )


def route(value: str | None) -> str | None:
    """``TABLEMATE_ROUTE``: ``fly`` (table routing by Fly's fly-replay), or off.

    >>> route("fly"), route(None), route("off")
    ('fly', None, None)
    """
    value = (value or "").strip().lower()
    if value in {"", "0", "no", "off", "false"}:
        return None
    if value == "fly":
        return "fly"
    raise ValueError(f"TABLEMATE_ROUTE must be 'fly' or off, not {value!r}")


def _load(spec: str) -> Any:
    module, _, attr = spec.strip().partition(":")
    return getattr(importlib.import_module(module), attr)


def from_env() -> dict[str, Any]:
    return {
        "REDIS_URL": os.environ.get("REDIS_URL") or None,
        "TABLE_TTL": int(os.environ.get("TABLEMATE_TABLE_TTL", str(6 * 3600))),
        "FIXED_RANDOM": _flag("TABLEMATE_FIXED_RANDOM"),
        "PUBLIC_URL": os.environ.get("TABLEMATE_PUBLIC_URL") or None,
        # A bearer token that shows the process's own figures on /healthz (operators, bench/).
        "STATS_TOKEN": os.environ.get("TABLEMATE_STATS_TOKEN") or None,
        "TRUST_PROXY": trust_proxy(os.environ.get("TABLEMATE_TRUST_PROXY")),
        # Per client address and minute, shared by every instance through Redis.
        "RATE_CREATE": int(os.environ.get("TABLEMATE_RATE_CREATE", "30")),
        "RATE_JOIN": int(os.environ.get("TABLEMATE_RATE_JOIN", "60")),
        "RATE_CODE": int(os.environ.get("TABLEMATE_RATE_CODE", "30")),
        # Per seat, per game and per table (server/config.py: Limits; server/service/pipeline.py: charge).
        "RATE_ACTIONS_SEAT": int(os.environ.get("TABLEMATE_RATE_ACTIONS_SEAT", str(Limits.seat_actions))),
        "RATE_CHATTER": int(os.environ.get("TABLEMATE_RATE_CHATTER", str(Limits.chatter_rate))),
        "RATE_ANCHORS": int(os.environ.get("TABLEMATE_RATE_ANCHORS", str(Limits.anchor_rate))),
        "MAX_CHATTER": int(os.environ.get("TABLEMATE_MAX_CHATTER", str(Limits.seat_chatter))),
        "MAX_SEAT_LOG": int(os.environ.get("TABLEMATE_MAX_SEAT_LOG", str(Limits.seat_entries))),
        "MAX_LOG": int(os.environ.get("TABLEMATE_MAX_LOG", str(Limits.log_entries))),
        "RATE_ANALYSIS": int(os.environ.get("TABLEMATE_RATE_ANALYSIS", str(Limits.analyses))),
        # When the host may step in for a stalled seat (server/service/stall.py: StallRule).
        "STALL_AFTER": float(os.environ.get("TABLEMATE_STALL_AFTER", str(Limits.stall_after))),
        "STALL_OFFLINE": float(os.environ.get("TABLEMATE_STALL_OFFLINE", str(Limits.stall_offline))),
        "MAX_CONTENT_LENGTH": 64 * 1024,
        "WS_MAX_MESSAGE": 16 * 1024,
        # Live sockets per seat, per client address and per process (server/live/admission.py).
        # The process cap leaves a tenth of gunicorn's connections to HTTP.
        "WS_PER_SEAT": int(os.environ.get("TABLEMATE_WS_PER_SEAT", "5")),
        "WS_PER_ADDRESS": int(os.environ.get("TABLEMATE_WS_PER_ADDRESS", "64")),
        "WS_MAX": int(os.environ.get("TABLEMATE_WS_MAX") or
                      int(os.environ.get("TABLEMATE_MAX_CONNECTIONS", "10000")) * 9 // 10),
        # Per-message deflate on the sockets: off unless asked for (memory per phone).
        "WS_COMPRESSION": _flag("TABLEMATE_WS_COMPRESSION"),
        # The server's heartbeat (s): a socket that was sent nothing for this long gets a pong.
        "WS_BEAT": float(os.environ.get("TABLEMATE_WS_BEAT", "2")),
        # Seconds without a message before the server gives a socket up (phones ping every ~8 s).
        "WS_SILENT_LIMIT": float(os.environ.get("TABLEMATE_WS_SILENT", "25")),
        # Seconds the host's seat has no live phone before its powers pass on (service/hostship.py).
        "HOST_AWAY": float(os.environ.get("TABLEMATE_HOST_AWAY", "60")),
        # "module:attr,..." engines added to the registry; the test suite uses it
        # to serve a toy game from real server processes.
        # Table routing between instances (server/http/routing.py): "fly" answers a table's
        # request that another instance owns with Fly's fly-replay header; off by default.
        "ROUTE": route(os.environ.get("TABLEMATE_ROUTE")),
        # This instance's name for routing: Fly sets FLY_MACHINE_ID on every machine.
        "INSTANCE_ID": os.environ.get("FLY_MACHINE_ID") or None,
        "EXTRA_ENGINES": tuple(_load(spec) for spec in os.environ.get("TABLEMATE_EXTRA_ENGINES", "").split(",") if spec),
    }


def check_public_url(cfg: Any) -> None:
    """Behind a proxy (a deployment) the join links and the socket origin
    check need the site's real address: the request's Host header is the
    client's to choose. Starting without it would be quietly unsafe."""
    public = cfg.get("PUBLIC_URL")
    if public:
        parts = urlsplit(public)
        if parts.scheme not in {"http", "https"} or not parts.netloc or parts.path not in {"", "/"}:
            raise RuntimeError(f"TABLEMATE_PUBLIC_URL must look like https://host[:port], not {public!r}")
    elif cfg.get("TRUST_PROXY"):
        raise RuntimeError(
            "TABLEMATE_PUBLIC_URL is required when TABLEMATE_TRUST_PROXY is set (a deployment): "
            "join links and the WebSocket origin check use it (docs/deploy.md)."
        )
