"""The examples in the shared engine modules' docstrings run."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from engines import contract, errors, history, legality, seats
from engines.camelup import describe as camelup_describe
from engines.countup import describe as countup_describe
from engines.kingup import describe as kingup_describe


@pytest.mark.parametrize("module", [contract, errors, history, legality, seats, camelup_describe, countup_describe,
                                    kingup_describe], ids=lambda m: m.__name__)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
