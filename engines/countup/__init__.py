"""Count Up (카운트 업): secret numbers, the count called aloud, 4 rounds.

Rules: ``../shared/rules/countup.md`` (R1-R26); user-facing assumptions:
``docs/rules/countup.md``.
"""

from engines.countup.engine import CountUpEngine

ENGINE = CountUpEngine()

__all__ = ["ENGINE", "CountUpEngine"]
