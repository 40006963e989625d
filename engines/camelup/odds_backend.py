"""Which solver answers (``odds_np`` with NumPy, else ``odds_py``): NumPy is
optional, and below a few dice the plain-Python solver is the faster."""

from __future__ import annotations

from typing import Literal

from engines.camelup.odds_board import Position

try:
    from engines.camelup import odds_np, odds_whatif
except ImportError:  # pragma: no cover - the NumPy path is the normal one
    odds_np = None  # type: ignore[assignment]
    odds_whatif = None  # type: ignore[assignment]

Backend = Literal["auto", "numpy", "python"]
#: Below this many dice in the pyramid the plain-Python solver is faster than
#: NumPy's per-call overhead (measured by bench/odds.py).
NUMPY_FROM_DICE = 4


def numpy_allowed(backend: Backend) -> bool:
    """Whether NumPy may be used at all."""
    if backend == "numpy" and odds_np is None:
        raise RuntimeError("NumPy is not installed")
    return backend != "python" and odds_np is not None


def use_numpy(pos: Position, backend: Backend) -> bool:
    return numpy_allowed(backend) and (backend == "numpy" or len(pos.dice) >= NUMPY_FROM_DICE)


__all__ = ["NUMPY_FROM_DICE", "Backend", "numpy_allowed", "odds_np", "odds_whatif", "use_numpy"]
