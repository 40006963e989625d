"""Who sent a request, as both adapters ask it: the client's address (what
rate limits and socket caps count), trusting only the deployment's proxies,
and whether a browser's Origin is this site's (a socket's check)."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import current_app, request


def forwarded_address(header: str | None, hops: int) -> str | None:
    """The client address in ``X-Forwarded-For`` behind ``hops`` trusted proxies.

    Each proxy appends the address it received the request from, so the
    entry the outermost trusted proxy appended is ``hops`` from the right;
    everything left of it was written by the client and proves nothing.

    >>> forwarded_address("6.6.6.6, 1.2.3.4", 1)
    '1.2.3.4'
    >>> forwarded_address("6.6.6.6, 1.2.3.4, 10.0.0.2", 2)
    '1.2.3.4'
    >>> forwarded_address("1.2.3.4", 2) is None
    True
    """
    if not header or hops < 1:
        return None
    entries = [e.strip() for e in header.split(",") if e.strip()]
    return entries[-hops] if len(entries) >= hops else None


def client_address() -> str:
    """The address rate limits count, trusting only what the deployment's
    proxy sets (``TABLEMATE_TRUST_PROXY``; see docs/deploy.md)."""
    trust = current_app.config["TRUST_PROXY"]
    if trust == "fly":
        # Fly's edge sets Fly-Client-IP itself, replacing any value a client sent.
        return request.headers.get("Fly-Client-IP") or request.remote_addr or "unknown"
    if isinstance(trust, int) and trust > 0:
        found = forwarded_address(request.headers.get("X-Forwarded-For"), trust)
        return found or request.remote_addr or "unknown"
    return request.remote_addr or "unknown"


def origin_ok() -> bool:
    """A browser's WebSocket must come from a page of this site: the
    configured public URL's origin (the request's own Host header is the
    client's to choose, so it is used only when no public URL is set, that is
    on a LAN or a developer's machine)."""
    origin = request.headers.get("Origin")
    if not origin:
        return True  # not a browser; the token still decides
    public = current_app.config["PUBLIC_URL"]
    expected = urlsplit(public).netloc if public else request.host
    return urlsplit(origin).netloc == expected
