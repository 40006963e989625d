"""Draws the app icons (a round table with seats around it) as PNG files.

Run from anywhere: ``python web/icons/make_icons.py`` (needs Pillow). The PNGs
are committed; rerun only when the design changes.
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

BACKGROUND = (20, 22, 28, 255)  # #14161c, the theme colour
TABLE = (245, 185, 66, 255)  # #f5b942, the accent
FELT = (34, 38, 48, 255)
SEAT = (238, 240, 244, 255)
SUPERSAMPLE = 4
HERE = Path(__file__).resolve().parent


def draw(size: int, *, maskable: bool, rounded: bool = True) -> Image.Image:
    big = size * SUPERSAMPLE
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if maskable or not rounded:
        d.rectangle((0, 0, big, big), fill=BACKGROUND)
    else:
        d.rounded_rectangle((0, 0, big - 1, big - 1), radius=big // 5, fill=BACKGROUND)
    # A maskable icon may be cropped to a circle of 80 % of its width.
    scale = 0.62 if maskable else 0.8
    c = big / 2
    r_table = big * scale * 0.32
    ring = big * scale * 0.07
    d.ellipse((c - r_table, c - r_table, c + r_table, c + r_table), fill=TABLE)
    inner = r_table - ring
    d.ellipse((c - inner, c - inner, c + inner, c + inner), fill=FELT)
    r_orbit = r_table + big * scale * 0.11
    r_seat = big * scale * 0.065
    for i in range(6):
        a = -math.pi / 2 + i * math.pi / 3
        x, y = c + r_orbit * math.cos(a), c + r_orbit * math.sin(a)
        d.ellipse((x - r_seat, y - r_seat, x + r_seat, y + r_seat), fill=SEAT)
    # A die in the middle of the table.
    s = inner * 0.72
    d.rounded_rectangle((c - s / 2, c - s / 2, c + s / 2, c + s / 2), radius=s / 6, fill=SEAT)
    pip = s * 0.11
    for dx, dy in ((-0.25, -0.25), (0, 0), (0.25, 0.25)):
        x, y = c + dx * s, c + dy * s
        d.ellipse((x - pip, y - pip, x + pip, y + pip), fill=BACKGROUND)
    return img.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    outputs = {
        # The tab's icon: small, so the home page's first load stays light
        # (the 192-px one is for the manifest and the home screen).
        "icon-48.png": draw(48, maskable=False),
        "icon-192.png": draw(192, maskable=False),
        "icon-512.png": draw(512, maskable=False),
        "icon-maskable-512.png": draw(512, maskable=True),
        # iOS rounds the corners itself and shows transparency as black.
        "apple-touch-icon.png": draw(180, maskable=False, rounded=False),
    }
    for name, img in outputs.items():
        img.save(HERE / name, optimize=True)
        print(HERE / name, img.size)


if __name__ == "__main__":
    main()
