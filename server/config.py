"""Configuration from the environment, read once by the app factory."""

from __future__ import annotations

import importlib
import os
from typing import Any


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


def _load(spec: str) -> Any:
    module, _, attr = spec.strip().partition(":")
    return getattr(importlib.import_module(module), attr)


def from_env() -> dict[str, Any]:
    return {
        "REDIS_URL": os.environ.get("REDIS_URL") or None,
        "TABLE_TTL": int(os.environ.get("TABLEMATE_TABLE_TTL", str(6 * 3600))),
        "FIXED_RANDOM": _flag("TABLEMATE_FIXED_RANDOM"),
        "PUBLIC_URL": os.environ.get("TABLEMATE_PUBLIC_URL") or None,
        "TRUST_PROXY": trust_proxy(os.environ.get("TABLEMATE_TRUST_PROXY")),
        # Per client address and minute, shared by every instance through Redis.
        "RATE_CREATE": int(os.environ.get("TABLEMATE_RATE_CREATE", "30")),
        "RATE_JOIN": int(os.environ.get("TABLEMATE_RATE_JOIN", "60")),
        "RATE_CODE": int(os.environ.get("TABLEMATE_RATE_CODE", "30")),
        "MAX_CONTENT_LENGTH": 64 * 1024,
        "WS_MAX_MESSAGE": 16 * 1024,
        # Per-message deflate on the sockets: off unless asked for (memory per phone).
        "WS_COMPRESSION": _flag("TABLEMATE_WS_COMPRESSION"),
        "WS_PING_INTERVAL": int(os.environ.get("TABLEMATE_WS_PING", "25")),
        # Seconds without a message before the server gives a socket up (phones ping every ~2 s).
        "WS_SILENT_LIMIT": float(os.environ.get("TABLEMATE_WS_SILENT", "15")),
        # "module:attr,..." engines added to the registry; the test suite uses it
        # to serve a toy game from real server processes.
        "EXTRA_ENGINES": tuple(_load(spec) for spec in os.environ.get("TABLEMATE_EXTRA_ENGINES", "").split(",") if spec),
    }
