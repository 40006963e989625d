"""The examples in server docstrings run."""

from __future__ import annotations

import doctest

import pytest

from server import client, config, gunicorn_conf, wire
from server.http import routing, security
from server.live import admission, liveness
from server.service import history, seats
from server.store import connect


@pytest.mark.parametrize("module", [security, routing, config, seats, gunicorn_conf, history, admission, wire, client,
                                    liveness, connect],
                         ids=lambda m: m.__name__)
def test_doctests(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
