"""King Up! (킹업!): castle tracking, secret goal cards and votes, round scoring.

Rules: ``docs/rules/kingup.md`` (what the app assumes) and the spec it follows.
"""

from __future__ import annotations

from engines.kingup.engine import KingUpEngine

ENGINE = KingUpEngine()

__all__ = ["ENGINE", "KingUpEngine"]
