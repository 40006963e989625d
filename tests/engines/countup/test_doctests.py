"""The doctests of the engine's small helpers."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["options", "sheet", "flow", "count", "scoring", "state"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(f"engines.countup.{name}")
    failed, _ = doctest.testmod(module)
    assert failed == 0
