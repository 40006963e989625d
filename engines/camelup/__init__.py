"""Camel Up, 2nd edition (카멜업 2판): the phone is the pyramid.

``ENGINE`` is the engine instance; ``board_of(state)`` gives the board for the
odds solver and the UI (see ``engines.camelup.board.board_of``).
"""

from __future__ import annotations

from engines.camelup.board import board_of
from engines.camelup.engine import CamelUpEngine

ENGINE = CamelUpEngine()

__all__ = ["ENGINE", "CamelUpEngine", "board_of"]
