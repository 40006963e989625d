"""The scripted King Up! race to the throne that the stall tests (API and
e2e) play to reach an election: the same choice from the same legal list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def climb(legal: list[dict[str, Any]], positions: Mapping[str, int]) -> dict[str, Any]:
    """The next step from ``legal``: a placement on the highest level open,
    else the move of the character highest up (``positions``: the view's);
    ties go to the earlier letter."""
    places = [a for a in legal if a["type"] == "place"]
    if places:
        return max(places, key=lambda a: (a["level"], -ord(a["char"])))
    return max((a for a in legal if a["type"] == "move"), key=lambda a: (positions[a["char"]], -ord(a["char"])))
