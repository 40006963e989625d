"""The examples in the shared engine modules' docstrings run."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from engines import contract, errors, legality, seats


@pytest.mark.parametrize("module", [contract, errors, legality, seats], ids=lambda m: m.__name__)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
