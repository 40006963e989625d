"""The examples in server docstrings run."""

from __future__ import annotations

import doctest

import pytest

from server import gunicorn_conf, live, platform_text, reads, seats, security


@pytest.mark.parametrize("module", [security, seats, platform_text, gunicorn_conf, reads, live],
                         ids=lambda m: m.__name__)
def test_doctests(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
