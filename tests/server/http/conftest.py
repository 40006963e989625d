"""Schemathesis's items under pytest-xdist (the Makefile's ``-n``)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Gives each operation of ``test_schemathesis.py`` its own node id.

    Schemathesis (4.32) names its items ``test_api[GET /api/games]`` but, under
    pytest 9, leaves every node id ``...::test_api`` (it sets the attribute pytest 8
    read). pytest-xdist's ``--dist loadfile`` keys its queue by node id, so the 15
    operations ran as one, the first, and 14 went unfuzzed without a word. The id
    is rebuilt as pytest builds any item's own (its parent's, then its name)."""
    for item in items:
        if item.path.name != "test_schemathesis.py" or "[" not in item.name or item.nodeid.endswith("]"):
            continue
        if hasattr(item, "_id"):  # pytest 9: the structured node id
            item._id = item.parent.id.child(item.name)  # type: ignore[union-attr]
        else:
            item._nodeid = f"{item.nodeid}[{item.name.split('[', 1)[1]}"
