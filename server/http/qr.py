"""QR codes as SVG (for phones) and as text (for the terminal)."""

from __future__ import annotations

import io

import segno


def svg(text: str, scale: int = 8) -> str:
    buf = io.BytesIO()
    # Dark modules on white with a quiet zone: camera apps need the contrast.
    segno.make(text, error="m").save(buf, kind="svg", scale=scale, border=4, dark="#000", light="#fff",
                                     xmldecl=False, svgns=True)
    return buf.getvalue().decode("utf-8")


def png(text: str, scale: int = 24) -> bytes:
    """The same code as a 1-bit PNG, ~1 KB. Phones decode a PNG off the main
    thread; an SVG image is a whole document built on it (~30 ms on a slow
    phone's first lobby render). 24 px a module: crisp at 3x on the lobby's 320 px."""
    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="png", scale=scale, border=4, dark="#000", light="#fff")
    return buf.getvalue()


def terminal(text: str) -> str:
    buf = io.StringIO()
    segno.make(text, error="l").terminal(out=buf, compact=True)
    return buf.getvalue()
